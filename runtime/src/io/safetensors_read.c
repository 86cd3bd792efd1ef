/* safetensors reader: mmap, header parsed with cJSON, every rule of the reference parser checked
 * before a single tensor view is handed out. */
#include "internal.h"
#include "json_text.h"
#include "regular_file.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The reference parser's cap (safetensors/src/tensor.rs MAX_HEADER_SIZE). */
static const uint64_t max_header_bytes = 100000000u;
/* JSON numbers are doubles in cJSON: integers above 2^53 are not exact, so they are refused. */
static const double max_json_integer = 9007199254740992.0;

typedef struct st_entry {
    const char *name; /* points into the cJSON tree */
    const char *dtype_name;
    hum_dtype dtype;
    int32_t rank;
    int64_t shape[HUM_SAFETENSORS_MAX_RANK];
    uint64_t begin, end;
} st_entry;

struct hum_safetensors {
    char *path;
    void *map;
    size_t map_size;
    const unsigned char *buffer; /* start of the byte buffer (after the header) */
    cJSON *header;
    st_entry *entries; /* sorted by name */
    int64_t count;
    cJSON *metadata; /* the __metadata__ object inside `header`, or NULL */
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const st_entry *)a)->name, ((const st_entry *)b)->name);
}

static int by_offset(const void *a, const void *b)
{
    const st_entry *x = *(const st_entry *const *)a, *y = *(const st_entry *const *)b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* A non-negative JSON integer that fits uint64 exactly, or -1. */
static int json_uint(const cJSON *v, uint64_t *out)
{
    if (!cJSON_IsNumber(v))
        return -1;
    double d = v->valuedouble;
    if (!(d >= 0.0) || d > max_json_integer || d != (double)(uint64_t)d)
        return -1;
    *out = (uint64_t)d;
    return 0;
}

static hum_status parse_metadata(hum_safetensors *st, cJSON *meta)
{
    if (!cJSON_IsObject(meta))
        return hum_fail(HUM_ERR_FORMAT, "%s: __metadata__ is not a JSON object (expected a string-to-string map)",
                        st->path);
    for (cJSON *kv = meta->child; kv; kv = kv->next)
        if (!cJSON_IsString(kv))
            return hum_fail(HUM_ERR_FORMAT, "%s: __metadata__ value of \"%s\" is not a string", st->path, kv->string);
    st->metadata = meta;
    return HUM_OK;
}

static hum_status parse_entry(const hum_safetensors *st, const cJSON *item, st_entry *e)
{
    e->name = item->string;
    const char *name = hum_printable(item->string); /* for the messages */
    if (!cJSON_IsObject(item))
        return hum_fail(HUM_ERR_FORMAT, "%s: tensor \"%s\": header entry is not a JSON object", st->path, name);
    if (!*name)
        return hum_fail(HUM_ERR_FORMAT, "%s: a tensor has an empty name", st->path);
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(item, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(item, "shape");
    const cJSON *offsets = cJSON_GetObjectItemCaseSensitive(item, "data_offsets");
    if (!cJSON_IsString(dtype))
        return hum_fail(HUM_ERR_FORMAT, "%s: tensor \"%s\": missing string \"dtype\"", st->path, name);
    int32_t bits = 0;
    if (hum_safetensors_dtype(dtype->valuestring, &bits, &e->dtype) != HUM_OK)
        return hum_fail_context(HUM_ERR_FORMAT, "%s: tensor \"%s\"", st->path, name);
    e->dtype_name = dtype->valuestring;
    if (!cJSON_IsArray(shape))
        return hum_fail(HUM_ERR_FORMAT, "%s: tensor \"%s\": missing array \"shape\"", st->path, name);
    int rank = cJSON_GetArraySize(shape);
    if (rank > HUM_SAFETENSORS_MAX_RANK)
        return hum_fail(HUM_ERR_FORMAT, "%s: tensor \"%s\": rank %d exceeds hum's limit of %d", st->path, name, rank,
                        (int)HUM_SAFETENSORS_MAX_RANK);
    e->rank = rank;
    uint64_t numel = 1;
    int overflow = 0;
    for (int d = 0; d < rank; d++) {
        uint64_t dim;
        if (json_uint(cJSON_GetArrayItem(shape, d), &dim) != 0)
            return hum_fail(HUM_ERR_FORMAT, "%s: tensor \"%s\": shape[%d] is not a non-negative integer below 2^53",
                            st->path, name, d);
        e->shape[d] = (int64_t)dim;
        overflow |= __builtin_mul_overflow(numel, dim, &numel);
    }
    uint64_t total_bits;
    if (overflow || __builtin_mul_overflow(numel, (uint64_t)bits, &total_bits) || numel > (uint64_t)INT64_MAX / 8)
        return hum_fail(HUM_ERR_FORMAT, "%s: tensor \"%s\": shape overflows (element count times %d bits)", st->path,
                        name, bits);
    if (total_bits % 8 != 0)
        return hum_fail(HUM_ERR_FORMAT,
                        "%s: tensor \"%s\": %llu elements of %s (%d bits) are not a whole number of bytes", st->path,
                        name, (unsigned long long)numel, e->dtype_name, bits);
    if (!cJSON_IsArray(offsets) || cJSON_GetArraySize(offsets) != 2 ||
        json_uint(cJSON_GetArrayItem(offsets, 0), &e->begin) != 0 ||
        json_uint(cJSON_GetArrayItem(offsets, 1), &e->end) != 0)
        return hum_fail(HUM_ERR_FORMAT,
                        "%s: tensor \"%s\": \"data_offsets\" is not [begin, end] of two non-negative integers up "
                        "to 2^53", st->path, name);
    if (e->end < e->begin)
        return hum_fail(HUM_ERR_FORMAT, "%s: tensor \"%s\": data_offsets end %llu is before begin %llu", st->path,
                        name, (unsigned long long)e->end, (unsigned long long)e->begin);
    if (e->end - e->begin != total_bits / 8)
        return hum_fail(
            HUM_ERR_FORMAT,
            "%s: tensor \"%s\": data_offsets [%llu, %llu) hold %llu bytes but %llu elements of %s need %llu", st->path,
            name, (unsigned long long)e->begin, (unsigned long long)e->end, (unsigned long long)(e->end - e->begin),
            (unsigned long long)numel, e->dtype_name, (unsigned long long)(total_bits / 8));
    return HUM_OK;
}

/* The tensors must tile [0, buffer_len) exactly, as the reference parser demands. */
static hum_status check_layout(const hum_safetensors *st, uint64_t buffer_len)
{
    for (int64_t i = 0; i < st->count; i++)
        if (st->entries[i].end > buffer_len)
            return hum_fail(HUM_ERR_FORMAT,
                            "%s: tensor \"%s\": data_offsets end %llu is past the end of the data section (%llu bytes)",
                            st->path, hum_printable(st->entries[i].name), (unsigned long long)st->entries[i].end,
                            (unsigned long long)buffer_len);
    const st_entry **order = malloc(sizeof *order * (size_t)(st->count ? st->count : 1));
    if (!order)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: out of memory", st->path);
    for (int64_t i = 0; i < st->count; i++)
        order[i] = &st->entries[i];
    qsort(order, (size_t)st->count, sizeof *order, by_offset);
    uint64_t at = 0;
    hum_status s = HUM_OK;
    for (int64_t i = 0; i < st->count && s == HUM_OK; i++) {
        if (order[i]->begin < at)
            s = hum_fail(HUM_ERR_FORMAT, "%s: tensor \"%s\" (bytes %llu..%llu) overlaps tensor \"%s\" (ends at %llu)",
                         st->path, hum_printable(order[i]->name), (unsigned long long)order[i]->begin,
                         (unsigned long long)order[i]->end, hum_printable(order[i - 1]->name), (unsigned long long)at);
        else if (order[i]->begin > at)
            s = hum_fail(HUM_ERR_FORMAT,
                         "%s: %llu unindexed bytes before tensor \"%s\" (the buffer must be fully indexed)", st->path,
                         (unsigned long long)(order[i]->begin - at), hum_printable(order[i]->name));
        at = order[i]->end;
    }
    free(order);
    if (s == HUM_OK && at != buffer_len)
        s = hum_fail(HUM_ERR_FORMAT, "%s: %llu trailing bytes after the last tensor are not indexed by the header",
                     st->path, (unsigned long long)(buffer_len - at));
    return s;
}

static hum_status parse_header(hum_safetensors *st, const char *text, size_t len, uint64_t buffer_len)
{
    if (len == 0 || text[0] != '{')
        return hum_fail(HUM_ERR_FORMAT, "%s: header does not start with '{'", st->path);
    long long bad = hum_json_utf8_error(text, len);
    if (bad >= 0)
        return hum_fail(HUM_ERR_FORMAT, "%s: header is not valid UTF-8 (header byte %lld)", st->path, bad);
    if ((bad = hum_json_nul_escape(text, len)) >= 0)
        return hum_fail(HUM_ERR_FORMAT, "%s: header holds a NUL character (\\u0000 at header byte %lld): tensor names "
                        "and metadata are C strings", st->path, bad);
    const char *end = NULL;
    st->header = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    /* cJSON stops on the opening bracket of the level past its limit */
    if (!st->header && end && end < text + len && (*end == '[' || *end == '{') &&
        hum_json_depth_at(text, (size_t)(end - text)) >= CJSON_NESTING_LIMIT)
        return hum_fail(HUM_ERR_FORMAT, "%s: header nests lists and objects more than %d deep (header byte %lld)",
                        st->path, CJSON_NESTING_LIMIT, (long long)(end - text));
    if (!st->header)
        return hum_fail(HUM_ERR_FORMAT, "%s: header is not valid JSON (error at header byte %lld)", st->path,
                        end ? (long long)(end - text) : -1LL);
    for (const char *p = end; p < text + len; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            return hum_fail(HUM_ERR_FORMAT, "%s: header has bytes after its JSON object (header byte %lld)", st->path,
                            (long long)(p - text));
    if (!cJSON_IsObject(st->header))
        return hum_fail(HUM_ERR_FORMAT, "%s: header is not a JSON object", st->path);
    int64_t n = 0;
    for (cJSON *item = st->header->child; item; item = item->next)
        n++;
    st->entries = calloc((size_t)(n ? n : 1), sizeof *st->entries);
    if (!st->entries)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: out of memory for %lld header entries", st->path, (long long)n);
    for (cJSON *item = st->header->child; item; item = item->next) {
        hum_status s = strcmp(item->string, "__metadata__") == 0 ? parse_metadata(st, item)
                                                                 : parse_entry(st, item, &st->entries[st->count++]);
        if (s != HUM_OK)
            return s;
    }
    qsort(st->entries, (size_t)st->count, sizeof *st->entries, by_name);
    for (int64_t i = 1; i < st->count; i++)
        if (strcmp(st->entries[i - 1].name, st->entries[i].name) == 0)
            return hum_fail(HUM_ERR_FORMAT, "%s: tensor \"%s\" appears twice in the header", st->path,
                            hum_printable(st->entries[i].name));
    return check_layout(st, buffer_len);
}

static hum_status map_file(hum_safetensors *st)
{
    const char *why;
    const int fd = hum_open_regular(st->path, 0, &why);
    if (fd < 0)
        return hum_fail(HUM_ERR_IO, "%s: cannot open: %s", st->path, why);
    struct stat sb;
    hum_status s = HUM_OK;
    if (fstat(fd, &sb) != 0)
        s = hum_fail(HUM_ERR_IO, "%s: cannot stat: %s", st->path, strerror(errno));
    else if (sb.st_size < 8)
        s = hum_fail(HUM_ERR_FORMAT, "%s: file is %lld bytes, too short for the 8-byte header length", st->path,
                     (long long)sb.st_size);
    if (s == HUM_OK) {
        st->map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (st->map == MAP_FAILED) {
            st->map = NULL;
            s = hum_fail(HUM_ERR_IO, "%s: cannot mmap %lld bytes: %s", st->path, (long long)sb.st_size,
                         strerror(errno));
        } else {
            st->map_size = (size_t)sb.st_size;
        }
    }
    close(fd);
    return s;
}

void hum_safetensors_close(hum_safetensors *st)
{
    if (!st)
        return;
    if (st->map)
        munmap(st->map, st->map_size);
    cJSON_Delete(st->header);
    free(st->entries);
    free(st->path);
    free(st);
}

hum_status hum_safetensors_open(const char *path, hum_safetensors **out)
{
    if (!path || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_safetensors_open: NULL argument");
    *out = NULL;
    hum_safetensors *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(path))) {
        free(st);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    hum_status s = map_file(st);
    if (s == HUM_OK) {
        const unsigned char *m = st->map;
        uint64_t n = 0;
        for (int i = 7; i >= 0; i--)
            n = n << 8 | m[i];
        uint64_t room = st->map_size - 8;
        if (n > max_header_bytes)
            s = hum_fail(HUM_ERR_FORMAT, "%s: header length %llu exceeds the limit of %llu bytes", path,
                         (unsigned long long)n, (unsigned long long)max_header_bytes);
        else if (n > room)
            s = hum_fail(HUM_ERR_FORMAT,
                         "%s: header length %llu is larger than the file allows (%llu bytes after the length)", path,
                         (unsigned long long)n, (unsigned long long)room);
        else {
            st->buffer = m + 8 + n;
            s = parse_header(st, (const char *)m + 8, (size_t)n, room - n);
        }
    }
    if (s != HUM_OK) {
        hum_safetensors_close(st);
        return s;
    }
    *out = st;
    return HUM_OK;
}

int64_t hum_safetensors_count(const hum_safetensors *st) { return st ? st->count : 0; }

static void fill(const hum_safetensors *st, const st_entry *e, hum_safetensors_tensor *out)
{
    memset(out, 0, sizeof *out);
    out->name = e->name;
    out->dtype_name = e->dtype_name;
    out->dtype = e->dtype;
    out->rank = e->rank;
    memcpy(out->shape, e->shape, sizeof e->shape);
    out->data = st->buffer + e->begin;
    out->nbytes = (int64_t)(e->end - e->begin);
    out->file = st->path;
}

hum_status hum_safetensors_get(const hum_safetensors *st, int64_t index, hum_safetensors_tensor *out)
{
    if (!st || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_safetensors_get: NULL argument");
    if (index < 0 || index >= st->count)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: tensor index %lld outside [0, %lld)", st->path, (long long)index,
                        (long long)st->count);
    fill(st, &st->entries[index], out);
    return HUM_OK;
}

hum_status hum_safetensors_find(const hum_safetensors *st, const char *name, hum_safetensors_tensor *out)
{
    if (!st || !name || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_safetensors_find: NULL argument");
    st_entry key = {.name = name};
    const st_entry *e = bsearch(&key, st->entries, (size_t)st->count, sizeof key, by_name);
    if (!e)
        return hum_fail(HUM_ERR_FORMAT, "%s: no tensor \"%s\"", st->path, hum_printable(name));
    fill(st, e, out);
    return HUM_OK;
}

int32_t hum_safetensors_has(const hum_safetensors *st, const char *name)
{
    st_entry key = {.name = name};
    return st && name && bsearch(&key, st->entries, (size_t)st->count, sizeof key, by_name) != NULL;
}

const char *hum_safetensors_metadata(const hum_safetensors *st, const char *key)
{
    if (!st || !st->metadata || !key)
        return NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(st->metadata, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}
