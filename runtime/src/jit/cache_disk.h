/* The on-disk kernel cache: one file per cubin, <dir>/kernels/<key>.hum, written atomically
 * (temp file + rename) under a per-key flock (<dir>/locks/<key>.lock), and NVRTC logs of failed
 * compilations in <dir>/logs/<key>.log.
 *
 * Entry layout (host byte order; the cache is per machine):
 *   0  "HUMCUBIN"         8  u32 format version   12 key (16 bytes)   28 arch (16, NUL-padded)
 *   44 u32 kernel name length   48 u32 lowered name length   52 u64 cubin size
 *   60 u64 XXH3-64 of the payload   68 u64 XXH3-64 of bytes 0..67
 *   76 payload: kernel name, lowered name, cubin (no terminators)
 * A file whose checksums, lengths or key do not match is treated as absent (and so recompiled). */
#ifndef HUM_CACHE_DISK_H
#define HUM_CACHE_DISK_H

#include "jit_key.h"

#include <stddef.h>
#include <stdint.h>

typedef struct hum_cache_entry_view {
    uint8_t key[HUM_JIT_KEY_BYTES];
    char arch[16]; /* NUL-terminated */
    const char *kernel_name; /* not terminated; kernel_name_len bytes */
    uint32_t kernel_name_len;
    const char *lowered_name; /* not terminated */
    uint32_t lowered_name_len;
    const uint8_t *cubin;
    uint64_t cubin_size;
} hum_cache_entry_view;

/* 1 and a view into `data` when it is a complete, intact entry; 0 otherwise. */
int hum_cache_entry_parse(const uint8_t *data, size_t size, hum_cache_entry_view *out);

/* Creates dir and its kernels/, logs/ and locks/ subdirectories; HUM_ERR_IO naming the one that fails. */
hum_status hum_cache_prepare(const char *dir);

/* "<dir>/<sub>/<keyhex><ext>"; HUM_ERR_INVALID_ARG when it does not fit in cap. */
hum_status hum_cache_path(const char *dir, const char *sub, const char *keyhex, const char *ext, char *out,
                          size_t cap);

/* Loads the entry for `key`: 1 with a malloc'ed cubin and the lowered name, 0 when there is no
 * intact entry, -1 with hum_last_error() set when memory runs out. */
int hum_cache_load(const char *dir, const uint8_t key[HUM_JIT_KEY_BYTES], void **cubin, size_t *cubin_size,
                   char *lowered, size_t lowered_cap);

hum_status hum_cache_store(const char *dir, const uint8_t key[HUM_JIT_KEY_BYTES], const char *arch,
                           const char *kernel_name, const char *lowered_name, const void *cubin, size_t cubin_size);

/* Blocks until this process holds the exclusive lock of `keyhex`; *fd is released by hum_cache_unlock. */
hum_status hum_cache_lock(const char *dir, const char *keyhex, int *fd);
void hum_cache_unlock(int fd);

/* Writes `text` to <dir>/logs/<keyhex>.log (atomically) and returns that path. */
hum_status hum_cache_save_log(const char *dir, const char *keyhex, const char *text, char *path, size_t cap);

/* Reads a whole file (malloc'ed); 1 read, 0 absent or unreadable, -1 out of memory (error set). */
int hum_cache_read_file(const char *path, uint8_t **data, size_t *size);

#endif
