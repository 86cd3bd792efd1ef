/* Where the kernel cache lives, and listing and clearing it (hum cache ls / clear). */
#include "cache_disk.h"
#include "internal.h"
#include "jit.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

hum_status hum_cache_default_dir(char *out, size_t cap)
{
    if (!out || cap == 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_cache_default_dir: out is NULL or empty");
    const char *env = getenv("HUM_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (env && *env)
        n = snprintf(out, cap, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(out, cap, "%s/hum", xdg);
    else if (home && *home)
        n = snprintf(out, cap, "%s/.cache/hum", home);
    else {
        out[0] = '\0';
        return hum_fail(HUM_ERR_IO, "no kernel cache directory: set HUM_CACHE_DIR, XDG_CACHE_HOME or HOME");
    }
    if (n < 0 || (size_t)n >= cap) {
        out[0] = '\0';
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_cache_default_dir: the path needs %d bytes, %zu given", n + 1, cap);
    }
    return HUM_OK;
}

static hum_status resolve(const char *cache_dir, char *dir)
{
    if (cache_dir && *cache_dir) {
        if (snprintf(dir, PATH_MAX, "%s", cache_dir) >= PATH_MAX)
            return hum_fail(HUM_ERR_INVALID_ARG, "cache directory path is longer than %d bytes", PATH_MAX - 1);
        return HUM_OK;
    }
    return hum_cache_default_dir(dir, PATH_MAX);
}

/* "<32 lowercase hex digits><suffix>" */
static int is_key_file(const char *name, const char *suffix)
{
    size_t i = 0;
    for (; i < 2 * HUM_JIT_KEY_BYTES; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return 0;
    return strcmp(name + i, suffix) == 0;
}

static void fill_entry(const char *path, const char *file_name, hum_cache_entry *e)
{
    memset(e, 0, sizeof *e);
    memcpy(e->key, file_name, 2 * HUM_JIT_KEY_BYTES);
    struct stat st;
    if (stat(path, &st) == 0) {
        e->file_bytes = (int64_t)st.st_size;
        e->modified_unix = (int64_t)st.st_mtime;
    }
    uint8_t *data;
    size_t size;
    hum_cache_entry_view v;
    char keyhex[HUM_JIT_KEY_HEX];
    if (hum_cache_read_file(path, &data, &size) <= 0) {
        hum_clear_error();
        return;
    }
    if (hum_cache_entry_parse(data, size, &v) && (hum_jit_key_hex(v.key, keyhex), strcmp(keyhex, e->key) == 0)) {
        e->valid = 1;
        e->cubin_bytes = (int64_t)v.cubin_size;
        snprintf(e->arch, sizeof e->arch, "%s", v.arch);
        if (v.kernel_name_len < sizeof e->kernel_name)
            snprintf(e->kernel_name, sizeof e->kernel_name, "%.*s", (int)v.kernel_name_len, v.kernel_name);
        else
            snprintf(e->kernel_name, sizeof e->kernel_name, "%.*s...", (int)sizeof e->kernel_name - 4, v.kernel_name);
    }
    free(data);
}

static int by_time_then_key(const void *a, const void *b)
{
    const hum_cache_entry *x = a, *y = b;
    if (x->modified_unix != y->modified_unix)
        return x->modified_unix < y->modified_unix ? -1 : 1;
    return strcmp(x->key, y->key);
}

hum_status hum_cache_list(const char *cache_dir, hum_cache_entry **entries, int32_t *count)
{
    if (!entries || !count)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_cache_list: entries or count is NULL");
    *entries = NULL;
    *count = 0;
    char dir[PATH_MAX], kernels[PATH_MAX + 16];
    hum_status st = resolve(cache_dir, dir);
    if (st != HUM_OK)
        return st;
    snprintf(kernels, sizeof kernels, "%s/kernels", dir);
    DIR *d = opendir(kernels);
    if (!d)
        return errno == ENOENT ? HUM_OK : hum_fail(HUM_ERR_IO, "cannot list %s: %s", kernels, strerror(errno));
    hum_cache_entry *list = NULL;
    int32_t n = 0, cap = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (!is_key_file(de->d_name, ".hum"))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            hum_cache_entry *grown = realloc(list, (size_t)cap * sizeof *grown);
            if (!grown) {
                free(list);
                closedir(d);
                return hum_fail(HUM_ERR_OUT_OF_MEMORY, "listing %s: out of memory", kernels);
            }
            list = grown;
        }
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", kernels, de->d_name);
        fill_entry(path, de->d_name, &list[n++]);
    }
    closedir(d);
    if (n > 1)
        qsort(list, (size_t)n, sizeof *list, by_time_then_key);
    *entries = list;
    *count = n;
    return HUM_OK;
}

void hum_cache_list_free(hum_cache_entry *entries)
{
    free(entries);
}

/* Removes the files in dir/sub that hum wrote there; returns how many matched `suffix`
 * (the count the caller reports), or -1 with the error set. */
static int clear_sub(const char *dir, const char *sub, const char *suffix)
{
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    DIR *d = opendir(path);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        hum_fail(HUM_ERR_IO, "cannot list %s: %s", path, strerror(errno));
        return -1;
    }
    int removed = 0, failed = 0;
    for (struct dirent *de; (de = readdir(d));) {
        int entry = is_key_file(de->d_name, suffix);
        /* Temp files of interrupted writes: ".tmp-<pid>-<n>-<name>". */
        if (!entry && strncmp(de->d_name, ".tmp-", 5) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", dir, sub, de->d_name);
        if (unlink(path) == 0)
            removed += entry;
        else if (errno != ENOENT && !failed++)
            hum_fail(HUM_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    }
    closedir(d);
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    rmdir(path); /* only succeeds when nothing else lives there */
    return failed ? -1 : removed;
}

hum_status hum_cache_clear(const char *cache_dir, int32_t *removed)
{
    char dir[PATH_MAX];
    if (removed)
        *removed = 0;
    hum_status st = resolve(cache_dir, dir);
    if (st != HUM_OK)
        return st;
    int kernels = clear_sub(dir, "kernels", ".hum");
    if (kernels < 0 || clear_sub(dir, "logs", ".log") < 0 || clear_sub(dir, "locks", ".lock") < 0)
        return HUM_ERR_IO;
    if (removed)
        *removed = kernels;
    return HUM_OK;
}
