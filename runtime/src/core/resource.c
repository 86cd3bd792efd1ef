#include "resource.h"

#include "embed.h"
#include "internal.h"
#include "regular_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *prefix;
    const char *env;
} overrides[] = { /* hum.h, hum_search_path_get */
    {"kernels/", "HUM_KERNEL_PATH"},
    {"lua/", "HUM_LUA_PATH"},
    {"formats/", "HUM_FORMAT_PATH"},
    {"policies/", "HUM_POLICY_PATH"},
};

const char *hum_resource_override(const char *relpath)
{
    for (size_t i = 0; i < sizeof overrides / sizeof overrides[0]; i++)
        if (strncmp(relpath, overrides[i].prefix, strlen(overrides[i].prefix)) == 0) {
            const char *v = getenv(overrides[i].env);
            return v && *v ? v : NULL;
        }
    return NULL;
}

int32_t hum_search_path_count(void) { return (int32_t)(sizeof overrides / sizeof overrides[0]); }

hum_status hum_search_path_get(int32_t index, hum_search_path *out)
{
    if (!out || index < 0 || index >= hum_search_path_count())
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_search_path_get: index %d (expected 0 to %d) or NULL out", index,
                        hum_search_path_count() - 1);
    out->tree = overrides[index].prefix;
    out->variable = overrides[index].env;
    out->dirs = hum_resource_override(overrides[index].prefix);
    return HUM_OK;
}

/* Reads a whole file; 1 on success, 0 if it does not exist, -1 on a read error (*why says why). */
static int read_file(const char *path, hum_resource *out, const char **why)
{
    FILE *f = hum_fopen_regular(path, 0, why);
    if (!f)
        return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    *why = "read error";
    char *buf = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)size + 1);
        if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    if (!buf)
        return -1;
    buf[size] = '\0';
    out->data = buf;
    out->size = (size_t)size;
    snprintf(out->origin, sizeof out->origin, "%s", path);
    return 1;
}

hum_status hum_resource_read(const char *relpath, hum_resource *out)
{
    memset(out, 0, sizeof *out);
    const char *dirs = hum_resource_override(relpath);
    const char *sub = strchr(relpath, '/');
    if (dirs && sub) {
        for (const char *d = dirs; *d;) {
            size_t len = strcspn(d, ":");
            char path[4096];
            int n = snprintf(path, sizeof path, "%.*s%s", (int)len, d, sub);
            if (len > 0 && n > 0 && (size_t)n < sizeof path) {
                const char *why = NULL;
                int r = read_file(path, out, &why);
                if (r > 0)
                    return HUM_OK;
                if (r < 0)
                    return hum_fail(HUM_ERR_IO, "cannot read %s: %s", path, why);
            }
            d += len + (d[len] == ':');
        }
    }
    const hum_embedded_file *e = hum_embedded_find(relpath);
    if (!e)
        return hum_fail(HUM_ERR_IO, "%s: no such file%s%s%s", relpath, dirs ? " in " : " embedded in libhum",
                        dirs ? dirs : "", dirs ? " nor embedded in libhum" : "");
    out->data = malloc((size_t)e->size + 1);
    if (!out->data)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "reading %s: out of memory", relpath);
    memcpy(out->data, e->data, (size_t)e->size + 1);
    out->size = (size_t)e->size;
    snprintf(out->origin, sizeof out->origin, "embedded:%s", relpath);
    return HUM_OK;
}

void hum_resource_free(hum_resource *r)
{
    free(r->data);
    memset(r, 0, sizeof *r);
}
