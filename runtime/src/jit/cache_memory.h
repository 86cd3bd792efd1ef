/* The in-process kernel cache in front of the disk cache: key -> (cubin, lowered name), shared by
 * every thread and every runtime of the process. Callers get their own copies. */
#ifndef HUM_CACHE_MEMORY_H
#define HUM_CACHE_MEMORY_H

#include "jit_key.h"

/* 1 with a malloc'ed copy of the cubin, 0 on a miss, -1 when memory runs out (error set). */
int hum_memory_cache_get(const uint8_t key[HUM_JIT_KEY_BYTES], void **cubin, size_t *cubin_size, char *lowered,
                         size_t lowered_cap);

/* Stores a copy; keeps the existing one if the key is present. */
hum_status hum_memory_cache_put(const uint8_t key[HUM_JIT_KEY_BYTES], const void *cubin, size_t cubin_size,
                                const char *lowered);

/* Forgets every entry (tests use it to see the disk cache as a fresh process does). */
void hum_memory_cache_clear(void);

#endif
