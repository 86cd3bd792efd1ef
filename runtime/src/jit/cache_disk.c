#include "cache_disk.h"

#include "internal.h"
#include "jit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

static const char magic[8] = {'H', 'U', 'M', 'C', 'U', 'B', 'I', 'N'};

enum {
    FORMAT_VERSION = 1,
    OFF_VERSION = 8,
    OFF_KEY = 12,
    OFF_ARCH = 28,
    ARCH_BYTES = 16,
    OFF_NAME_LEN = 44,
    OFF_LOWERED_LEN = 48,
    OFF_CUBIN_SIZE = 52,
    OFF_PAYLOAD_HASH = 60,
    OFF_HEADER_HASH = 68,
    HEADER_BYTES = 76
};

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

int hum_cache_entry_parse(const uint8_t *data, size_t size, hum_cache_entry_view *out)
{
    if (size < HEADER_BYTES || memcmp(data, magic, sizeof magic) != 0 || get32(data + OFF_VERSION) != FORMAT_VERSION ||
        XXH3_64bits(data, OFF_HEADER_HASH) != get64(data + OFF_HEADER_HASH))
        return 0;
    uint64_t name_len = get32(data + OFF_NAME_LEN), lowered_len = get32(data + OFF_LOWERED_LEN);
    uint64_t cubin_size = get64(data + OFF_CUBIN_SIZE);
    /* Each term is checked against the file size first, so the sum cannot overflow. */
    if (name_len > size || lowered_len > size || cubin_size > size ||
        HEADER_BYTES + name_len + lowered_len + cubin_size != size || cubin_size == 0 ||
        XXH3_64bits(data + HEADER_BYTES, size - HEADER_BYTES) != get64(data + OFF_PAYLOAD_HASH) ||
        memchr(data + OFF_ARCH, '\0', ARCH_BYTES) == NULL)
        return 0;
    memcpy(out->key, data + OFF_KEY, HUM_JIT_KEY_BYTES);
    memcpy(out->arch, data + OFF_ARCH, ARCH_BYTES);
    out->kernel_name = (const char *)data + HEADER_BYTES;
    out->kernel_name_len = (uint32_t)name_len;
    out->lowered_name = out->kernel_name + name_len;
    out->lowered_name_len = (uint32_t)lowered_len;
    out->cubin = (const uint8_t *)out->lowered_name + lowered_len;
    out->cubin_size = cubin_size;
    return 1;
}

static hum_status make_dir(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return hum_fail(HUM_ERR_INVALID_ARG, "cache directory path is longer than %d bytes", PATH_MAX - 1);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return hum_fail(HUM_ERR_IO, "cannot create cache directory %s: %s", buf, strerror(errno));
            *p = saved;
            if (!saved)
                break;
        }
    }
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return hum_fail(HUM_ERR_IO, "cache directory %s exists but is not a directory", buf);
    return HUM_OK;
}

hum_status hum_cache_prepare(const char *dir)
{
    static const char *const subs[] = {"kernels", "logs", "locks"};
    hum_status st = make_dir(dir);
    for (size_t i = 0; st == HUM_OK && i < sizeof subs / sizeof subs[0]; i++) {
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, subs[i]) >= (int)sizeof path)
            return hum_fail(HUM_ERR_INVALID_ARG, "cache directory path %s is too long", dir);
        st = make_dir(path);
    }
    return st;
}

hum_status hum_cache_path(const char *dir, const char *sub, const char *keyhex, const char *ext, char *out,
                          size_t cap)
{
    int n = snprintf(out, cap, "%s/%s/%s%s", dir, sub, keyhex, ext);
    if (n < 0 || (size_t)n >= cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "cache path under %s is longer than %zu bytes", dir, cap - 1);
    return HUM_OK;
}

int hum_cache_read_file(const char *path, uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    /* O_NONBLOCK: a FIFO put where an entry belongs would block open() until a writer came;
     * opened without waiting it fails the regular-file check below (on a regular file the flag
     * changes nothing) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 0;
    }
    size_t want = (size_t)st.st_size, got = 0;
    uint8_t *buf = malloc(want ? want : 1);
    if (!buf) {
        close(fd);
        hum_fail(HUM_ERR_OUT_OF_MEMORY, "reading %s (%zu bytes): out of memory", path, want);
        return -1;
    }
    while (got < want) {
        ssize_t r = read(fd, buf + got, want - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    *data = buf;
    *size = got;
    return 1;
}

int hum_cache_load(const char *dir, const uint8_t key[HUM_JIT_KEY_BYTES], void **cubin, size_t *cubin_size,
                   char *lowered, size_t lowered_cap)
{
    char keyhex[HUM_JIT_KEY_HEX], path[PATH_MAX];
    hum_jit_key_hex(key, keyhex);
    if (hum_cache_path(dir, "kernels", keyhex, ".hum", path, sizeof path) != HUM_OK) {
        hum_clear_error();
        return 0;
    }
    uint8_t *data;
    size_t size;
    int r = hum_cache_read_file(path, &data, &size);
    if (r <= 0)
        return r;
    hum_cache_entry_view view;
    int ok = hum_cache_entry_parse(data, size, &view) && memcmp(view.key, key, HUM_JIT_KEY_BYTES) == 0 &&
             view.lowered_name_len < lowered_cap;
    if (ok) {
        void *bin = malloc(view.cubin_size);
        if (!bin) {
            free(data);
            hum_fail(HUM_ERR_OUT_OF_MEMORY, "loading %s: out of memory", path);
            return -1;
        }
        memcpy(bin, view.cubin, view.cubin_size);
        memcpy(lowered, view.lowered_name, view.lowered_name_len);
        lowered[view.lowered_name_len] = '\0';
        *cubin = bin;
        *cubin_size = view.cubin_size;
    }
    free(data);
    return ok;
}

/* Writes `data` to a fresh temp file next to `path`, then renames it over `path`, so readers
 * see the old file or the whole new one. No fsync: a file torn by a power loss fails its
 * checksum and is recompiled. */
static hum_status write_atomically(const char *path, const void *data, size_t size)
{
    static atomic_uint counter;
    char tmp[PATH_MAX];
    const char *slash = strrchr(path, '/');
    int n = snprintf(tmp, sizeof tmp, "%.*s/.tmp-%ld-%u-%s", (int)(slash - path), path, (long)getpid(),
                     atomic_fetch_add(&counter, 1), slash + 1);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return hum_fail(HUM_ERR_INVALID_ARG, "temporary path for %s is too long", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return hum_fail(HUM_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
    size_t done = 0;
    int err = 0;
    while (done < size && !err) {
        ssize_t w = write(fd, (const char *)data + done, size - done);
        if (w > 0)
            done += (size_t)w;
        else if (w == 0 || errno != EINTR)
            err = w == 0 ? EIO : errno;
    }
    if (close(fd) != 0 && !err)
        err = errno;
    if (err) {
        unlink(tmp);
        return hum_fail(HUM_ERR_IO, "cannot write %s: %s", tmp, strerror(err));
    }
    if (rename(tmp, path) != 0) {
        err = errno;
        unlink(tmp);
        return hum_fail(HUM_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(err));
    }
    return HUM_OK;
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, sizeof v); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, sizeof v); }

hum_status hum_cache_store(const char *dir, const uint8_t key[HUM_JIT_KEY_BYTES], const char *arch,
                           const char *kernel_name, const char *lowered_name, const void *cubin, size_t cubin_size)
{
    size_t name_len = strlen(kernel_name), lowered_len = strlen(lowered_name);
    if (strlen(arch) >= ARCH_BYTES || name_len > UINT32_MAX || lowered_len > UINT32_MAX)
        return hum_fail(HUM_ERR_INVALID_ARG, "cache entry for %s: arch or kernel name too long", kernel_name);
    size_t size = HEADER_BYTES + name_len + lowered_len + cubin_size;
    uint8_t *image = calloc(1, size);
    if (!image)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "cache entry of %zu bytes: out of memory", size);
    memcpy(image, magic, sizeof magic);
    put32(image + OFF_VERSION, FORMAT_VERSION);
    memcpy(image + OFF_KEY, key, HUM_JIT_KEY_BYTES);
    memcpy(image + OFF_ARCH, arch, strlen(arch));
    put32(image + OFF_NAME_LEN, (uint32_t)name_len);
    put32(image + OFF_LOWERED_LEN, (uint32_t)lowered_len);
    put64(image + OFF_CUBIN_SIZE, cubin_size);
    memcpy(image + HEADER_BYTES, kernel_name, name_len);
    memcpy(image + HEADER_BYTES + name_len, lowered_name, lowered_len);
    memcpy(image + HEADER_BYTES + name_len + lowered_len, cubin, cubin_size);
    put64(image + OFF_PAYLOAD_HASH, XXH3_64bits(image + HEADER_BYTES, size - HEADER_BYTES));
    put64(image + OFF_HEADER_HASH, XXH3_64bits(image, OFF_HEADER_HASH));
    char keyhex[HUM_JIT_KEY_HEX], path[PATH_MAX];
    hum_jit_key_hex(key, keyhex);
    hum_status st = hum_cache_path(dir, "kernels", keyhex, ".hum", path, sizeof path);
    if (st == HUM_OK)
        st = write_atomically(path, image, size);
    free(image);
    return st;
}

hum_status hum_cache_lock(const char *dir, const char *keyhex, int *fd)
{
    char path[PATH_MAX];
    hum_status st = hum_cache_path(dir, "locks", keyhex, ".lock", path, sizeof path);
    if (st != HUM_OK)
        return st;
    int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (f < 0)
        return hum_fail(HUM_ERR_IO, "cannot open cache lock %s: %s", path, strerror(errno));
    while (flock(f, LOCK_EX) != 0) {
        if (errno != EINTR) {
            int saved = errno;
            close(f);
            return hum_fail(HUM_ERR_IO, "cannot lock %s: %s", path, strerror(saved));
        }
    }
    *fd = f;
    return HUM_OK;
}

void hum_cache_unlock(int fd)
{
    flock(fd, LOCK_UN);
    close(fd);
}

hum_status hum_cache_save_log(const char *dir, const char *keyhex, const char *text, char *path, size_t cap)
{
    hum_status st = hum_cache_path(dir, "logs", keyhex, ".log", path, cap);
    return st == HUM_OK ? write_atomically(path, text, strlen(text)) : st;
}
