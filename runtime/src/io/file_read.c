/* hum_file_read: a file a user named, read whole through the runtime's opener (regular_file.h),
 * the same check a config gets, for callers outside the runtime's own loaders (hum tune's
 * --candidates). */
#include "hum/hum_tools.h"
#include "internal.h"
#include "regular_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The rest of `f` into a malloc'ed buffer, NUL-terminated: in growing blocks, since a pipe has
 * no size to ask for beforehand. */
static hum_status read_to_end(FILE *f, const char *path, char **data, size_t *size)
{
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *grown = realloc(buf, cap);
            if (!grown) {
                free(buf);
                return hum_fail(HUM_ERR_OUT_OF_MEMORY, "reading %s: out of memory", path);
            }
            buf = grown;
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
    } while (got > 0);
    if (ferror(f)) {
        free(buf);
        return hum_fail(HUM_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    }
    buf[len] = '\0';
    *data = buf;
    *size = len;
    return HUM_OK;
}

hum_status hum_file_read(const char *path, char **data, size_t *size)
{
    if (!path || !data)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_file_read: NULL %s", !path ? "path" : "data");
    *data = NULL;
    size_t len = 0;
    const char *why;
    FILE *f = hum_fopen_regular(path, 1, &why);
    if (!f)
        return hum_fail(HUM_ERR_IO, "%s: %s", path, why);
    const hum_status st = read_to_end(f, path, data, &len);
    fclose(f);
    if (size)
        *size = len;
    return st;
}

void hum_file_free(char *data) { free(data); }
