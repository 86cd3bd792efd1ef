/* safetensors writer: a file the reference parser accepts, written atomically. */
#include "file_write.h"
#include "internal.h"
#include "json_text.h"
#include "safetensors_dtype.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct planned {
    const hum_safetensors_tensor *t;
    const char *dtype_name;
    int32_t bits;
    uint64_t nbytes;
} planned;

/* Descending element size, then name: the reference writer's order, which keeps every tensor
 * aligned to its element size once the header is padded to a multiple of 8. */
static int by_alignment(const void *a, const void *b)
{
    const planned *x = a, *y = b;
    int32_t ax = (x->bits + 7) / 8, ay = (y->bits + 7) / 8;
    if (ax != ay)
        return ax > ay ? -1 : 1;
    return strcmp(x->t->name, y->t->name);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const planned *)a)->t->name, ((const planned *)b)->t->name);
}

static hum_status plan_tensor(const char *path, const hum_safetensors_tensor *t, planned *p)
{
    if (!t->name || !*t->name)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: a tensor to write has no name", path);
    /* names a reader refuses (hum's and the reference parser): the header's metadata key, and
     * text that is not UTF-8 */
    if (!strcmp(t->name, "__metadata__"))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: a tensor named \"__metadata__\" (the header's metadata key)", path);
    const long long bad = hum_json_utf8_error(t->name, strlen(t->name));
    if (bad >= 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: tensor name \"%s\" is not UTF-8 (byte %lld)", path,
                        hum_printable(t->name), bad);
    p->t = t;
    p->dtype_name = t->dtype_name ? t->dtype_name : hum_safetensors_dtype_name(t->dtype);
    if (!p->dtype_name)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: tensor \"%s\": dtype 0x%08x has no safetensors name", path, t->name,
                        (unsigned)t->dtype);
    if (hum_safetensors_dtype(p->dtype_name, &p->bits, NULL) != HUM_OK)
        return hum_fail_context(HUM_ERR_INVALID_ARG, "%s: tensor \"%s\"", path, t->name);
    if (t->rank < 0 || t->rank > HUM_SAFETENSORS_MAX_RANK)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: tensor \"%s\": rank %d outside [0, %d]", path, t->name, t->rank,
                        (int)HUM_SAFETENSORS_MAX_RANK);
    uint64_t numel = 1;
    int overflow = 0;
    for (int d = 0; d < t->rank; d++) {
        if (t->shape[d] < 0)
            return hum_fail(HUM_ERR_INVALID_ARG, "%s: tensor \"%s\": shape[%d] = %lld is negative", path, t->name, d,
                            (long long)t->shape[d]);
        overflow |= __builtin_mul_overflow(numel, (uint64_t)t->shape[d], &numel);
    }
    uint64_t bits;
    /* 2^53 keeps every offset exact in the JSON numbers of the header. */
    if (overflow || __builtin_mul_overflow(numel, (uint64_t)p->bits, &bits) || bits / 8 > (1ull << 53))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: tensor \"%s\": shape is too large", path, t->name);
    if (bits % 8)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: tensor \"%s\": %llu elements of %s are not a whole number of bytes",
                        path, t->name, (unsigned long long)numel, p->dtype_name);
    p->nbytes = bits / 8;
    if (p->nbytes && !t->data)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: tensor \"%s\": NULL data", path, t->name);
    return HUM_OK;
}

/* The header JSON, padded with spaces to a multiple of 8 bytes; NULL on allocation failure. */
static char *build_header(const planned *plan, int64_t count, const char *const *metadata, size_t *len)
{
    cJSON *root = cJSON_CreateObject();
    int ok = root != NULL;
    if (ok && metadata && metadata[0]) {
        cJSON *meta = cJSON_AddObjectToObject(root, "__metadata__");
        ok = meta != NULL;
        for (size_t i = 0; ok && metadata[i]; i += 2)
            ok = metadata[i + 1] && cJSON_AddStringToObject(meta, metadata[i], metadata[i + 1]) != NULL;
    }
    uint64_t offset = 0;
    for (int64_t i = 0; ok && i < count; i++) {
        cJSON *e = cJSON_AddObjectToObject(root, plan[i].t->name);
        cJSON *shape = e && cJSON_AddStringToObject(e, "dtype", plan[i].dtype_name) ? cJSON_AddArrayToObject(e, "shape")
                                                                                    : NULL;
        ok = shape != NULL;
        for (int d = 0; ok && d < plan[i].t->rank; d++)
            ok = cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)plan[i].t->shape[d]));
        cJSON *offs = ok ? cJSON_AddArrayToObject(e, "data_offsets") : NULL;
        ok = offs && cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)offset));
        offset += plan[i].nbytes;
        ok = ok && cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)offset));
    }
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return NULL;
    size_t n = strlen(text), padded = (n + 7) / 8 * 8;
    char *out = realloc(text, padded + 1);
    if (!out) {
        free(text);
        return NULL;
    }
    memset(out + n, ' ', padded - n);
    out[padded] = '\0';
    *len = padded;
    return out;
}

static int write_all(FILE *f, const void *data, size_t n) { return n == 0 || fwrite(data, 1, n, f) == n; }

hum_status hum_safetensors_write(const char *path, const hum_safetensors_tensor *tensors, int64_t count,
                                 const char *const *metadata)
{
    if (!path || (count > 0 && !tensors) || count < 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_safetensors_write: NULL path or tensors");
    /* the metadata's text too: a header that is not UTF-8 is one no reader takes */
    for (size_t i = 0; metadata && metadata[i]; i++)
        if (hum_json_utf8_error(metadata[i], strlen(metadata[i])) >= 0)
            return hum_fail(HUM_ERR_INVALID_ARG, "%s: metadata %s \"%s\" is not UTF-8", path, i % 2 ? "value" : "key",
                            hum_printable(metadata[i]));
    planned *plan = calloc((size_t)(count ? count : 1), sizeof *plan);
    if (!plan)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    hum_status s = HUM_OK;
    for (int64_t i = 0; i < count && s == HUM_OK; i++)
        s = plan_tensor(path, &tensors[i], &plan[i]);
    if (s == HUM_OK) {
        qsort(plan, (size_t)count, sizeof *plan, by_name);
        for (int64_t i = 1; i < count && s == HUM_OK; i++)
            if (strcmp(plan[i - 1].t->name, plan[i].t->name) == 0)
                s = hum_fail(HUM_ERR_INVALID_ARG, "%s: tensor name \"%s\" given twice", path, plan[i].t->name);
        qsort(plan, (size_t)count, sizeof *plan, by_alignment);
    }
    for (size_t i = 0; s == HUM_OK && metadata && metadata[i]; i += 2)
        if (!metadata[i + 1])
            s = hum_fail(HUM_ERR_INVALID_ARG, "%s: metadata key \"%s\" has no value", path, metadata[i]);
    size_t header_len = 0;
    char *header = s == HUM_OK ? build_header(plan, count, metadata, &header_len) : NULL;
    if (s == HUM_OK && !header)
        s = hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: out of memory building the header", path);
    char tmp[4096];
    if (s == HUM_OK && snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%u", path, (long)getpid(), UINT_MAX) >= (int)sizeof tmp)
        s = hum_fail(HUM_ERR_INVALID_ARG, "%s: path too long", path);
    if (s == HUM_OK) {
        FILE *f = hum_io_create_temp(path, tmp, sizeof tmp);
        if (!f) {
            /* name the caller's path first: the temporary name alone reads like a file the user
             * never asked for */
            s = hum_fail(HUM_ERR_IO, "%s: cannot create (through %s): %s", path, tmp, strerror(errno));
        } else {
            unsigned char len8[8];
            for (int i = 0; i < 8; i++)
                len8[i] = (unsigned char)((uint64_t)header_len >> (8 * i));
            errno = 0; /* a short write may leave errno unset: EIO then, not an older errno */
            int ok = write_all(f, len8, 8) && write_all(f, header, header_len);
            for (int64_t i = 0; ok && i < count; i++)
                ok = write_all(f, plan[i].t->data, plan[i].nbytes);
            int err = hum_io_finish(f, ok ? 0 : (errno ? errno : EIO));
            ok = !err;
            if (ok && hum_io_commit(tmp, path, 1) != 0) {
                ok = 0;
                err = errno;
            }
            if (!ok) {
                unlink(tmp);
                s = hum_fail(HUM_ERR_IO, "%s: cannot write: %s", path, strerror(err));
            }
        }
    }
    free(header);
    free(plan);
    return s;
}
