/* Checkpoints: a directory (or one file) of safetensors shards plus the JSON config files that
 * say how it was quantized. Tensor names are merged across shards into one sorted index. */
#include "internal.h"
#include "json_text.h"
#include "regular_file.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const config_files[] = {"config.json", "hf_quant_config.json", "quantize_config.json",
                                           "quant_config.json"};
enum { NUM_CONFIGS = sizeof config_files / sizeof config_files[0] };
static const char index_file[] = "model.safetensors.index.json";

typedef struct ck_entry {
    const char *name;
    int32_t file;
    int64_t index;
} ck_entry;

struct hum_checkpoint {
    char *path;
    char *dir;
    hum_safetensors **files;
    int32_t file_count;
    ck_entry *entries;
    int64_t count;
    char *configs[NUM_CONFIGS];
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const ck_entry *)a)->name, ((const ck_entry *)b)->name);
}
static int by_string(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* dir + "/" + name, malloc'ed; NULL when out of memory. */
static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Whole file as a NUL-terminated string: 1 read, 0 absent, -1 error (message set). */
static int read_text(const char *path, char **out)
{
    *out = NULL;
    const char *why;
    FILE *f = hum_fopen_regular(path, 0, &why);
    if (!f) {
        if (errno == ENOENT)
            return 0;
        hum_fail(HUM_ERR_IO, "%s: cannot open: %s", path, why);
        return -1;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
                return -1;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        hum_fail(HUM_ERR_IO, "%s: read error", path);
        return -1;
    }
    buf[len] = '\0';
    *out = buf;
    return 1;
}

/* Parses `text` as a JSON object; HUM_ERR_FORMAT with the line of the error otherwise. */
static hum_status parse_object(const char *path, const char *text, cJSON **out)
{
    const long long nul = hum_json_nul_escape(text, strlen(text));
    if (nul >= 0)
        return hum_fail(HUM_ERR_FORMAT, "%s: a NUL character (\\u0000 at byte %lld) in a string: tensor and file names "
                        "are C strings", path, nul);
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithOpts(text, &end, 1);
    if (!j) {
        int line = 1;
        for (const char *p = text; end && p < end; p++)
            line += *p == '\n';
        return hum_fail(HUM_ERR_FORMAT, "%s:%d: not valid JSON", path, line);
    }
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return hum_fail(HUM_ERR_FORMAT, "%s: expected a JSON object at the top level", path);
    }
    *out = j;
    return HUM_OK;
}

static hum_status add_file(hum_checkpoint *c, const char *path)
{
    hum_safetensors **nf = realloc(c->files, sizeof *nf * (size_t)(c->file_count + 1));
    if (!nf)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    c->files = nf;
    hum_status s = hum_safetensors_open(path, &c->files[c->file_count]);
    if (s == HUM_OK)
        c->file_count++;
    return s;
}

/* Shards named by model.safetensors.index.json; each weight_map entry must be in its shard. */
static hum_status open_indexed(hum_checkpoint *c, const char *index_path, const char *text)
{
    cJSON *root = NULL;
    hum_status s = parse_object(index_path, text, &root);
    if (s != HUM_OK)
        return s;
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "weight_map");
    int n = cJSON_GetArraySize(map);
    char **shards = NULL;
    if (!cJSON_IsObject(map) || n == 0)
        s = hum_fail(HUM_ERR_FORMAT, "%s: \"weight_map\" must be a non-empty object of tensor -> shard file",
                     index_path);
    else if (!(shards = calloc((size_t)n, sizeof *shards)))
        s = hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: out of memory", index_path);
    int i = 0;
    for (const cJSON *e = s == HUM_OK ? map->child : NULL; e && s == HUM_OK; e = e->next, i++) {
        if (!cJSON_IsString(e) || !*e->valuestring || strchr(e->valuestring, '/') || strcmp(e->valuestring, "..") == 0)
            s = hum_fail(HUM_ERR_FORMAT, "%s: weight_map[\"%s\"] must be a file name in the checkpoint directory",
                         index_path, hum_printable(e->string));
        else
            shards[i] = e->valuestring;
    }
    int unique = 0;
    if (s == HUM_OK) {
        qsort(shards, (size_t)n, sizeof *shards, by_string);
        for (int k = 0; k < n; k++)
            if (k == 0 || strcmp(shards[k], shards[unique - 1]) != 0)
                shards[unique++] = shards[k];
        for (int k = 0; k < unique && s == HUM_OK; k++) {
            char *p = join(c->dir, shards[k]);
            s = p ? add_file(c, p) : hum_fail(HUM_ERR_OUT_OF_MEMORY, "out of memory");
            if (s != HUM_OK)
                hum_fail_context(s, "%s: shard named by weight_map", index_path);
            free(p);
        }
    }
    /* Files were opened in the order of the sorted unique shard names, so a name's position in
     * `shards` is its file index. */
    for (const cJSON *e = s == HUM_OK ? map->child : NULL; e && s == HUM_OK; e = e->next) {
        char *const *hit = bsearch(&e->valuestring, shards, (size_t)unique, sizeof *shards, by_string);
        if (!hum_safetensors_has(c->files[hit - shards], e->string))
            s = hum_fail(HUM_ERR_FORMAT, "%s: weight_map puts tensor \"%s\" in %s, which does not hold it", index_path,
                         hum_printable(e->string), hum_printable(e->valuestring));
    }
    free(shards);
    cJSON_Delete(root);
    return s;
}

/* Every *.safetensors file of the directory, in name order. */
static hum_status open_all(hum_checkpoint *c)
{
    struct dirent **list = NULL;
    int n = scandir(c->dir, &list, NULL, alphasort);
    if (n < 0)
        return hum_fail(HUM_ERR_IO, "%s: cannot list directory: %s", c->dir, strerror(errno));
    hum_status s = HUM_OK;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(list[i]->d_name);
        if (s == HUM_OK && len > 12 && strcmp(list[i]->d_name + len - 12, ".safetensors") == 0) {
            char *p = join(c->dir, list[i]->d_name);
            s = p ? add_file(c, p) : hum_fail(HUM_ERR_OUT_OF_MEMORY, "out of memory");
            free(p);
        }
        free(list[i]);
    }
    free(list);
    if (s == HUM_OK && c->file_count == 0)
        s = hum_fail(HUM_ERR_FORMAT, "%s: no .safetensors files and no %s", c->dir, index_file);
    return s;
}

static hum_status build_index(hum_checkpoint *c)
{
    int64_t total = 0;
    for (int32_t f = 0; f < c->file_count; f++)
        total += hum_safetensors_count(c->files[f]);
    c->entries = calloc((size_t)(total ? total : 1), sizeof *c->entries);
    if (!c->entries)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: out of memory for %lld tensors", c->path, (long long)total);
    for (int32_t f = 0; f < c->file_count; f++)
        for (int64_t i = 0; i < hum_safetensors_count(c->files[f]); i++) {
            hum_safetensors_tensor t;
            hum_safetensors_get(c->files[f], i, &t);
            c->entries[c->count++] = (ck_entry){t.name, f, i};
        }
    qsort(c->entries, (size_t)c->count, sizeof *c->entries, by_name);
    for (int64_t i = 1; i < c->count; i++)
        if (strcmp(c->entries[i - 1].name, c->entries[i].name) == 0) {
            hum_safetensors_tensor a, b;
            hum_safetensors_get(c->files[c->entries[i - 1].file], c->entries[i - 1].index, &a);
            hum_safetensors_get(c->files[c->entries[i].file], c->entries[i].index, &b);
            return hum_fail(HUM_ERR_FORMAT, "%s: tensor \"%s\" is in both %s and %s", c->path, hum_printable(a.name),
                            a.file, b.file);
        }
    return HUM_OK;
}

static hum_status read_configs(hum_checkpoint *c)
{
    for (int i = 0; i < NUM_CONFIGS; i++) {
        char *p = join(c->dir, config_files[i]);
        if (!p)
            return hum_fail(HUM_ERR_OUT_OF_MEMORY, "out of memory");
        int r = read_text(p, &c->configs[i]);
        hum_status s = r < 0 ? HUM_ERR_IO : HUM_OK;
        cJSON *j = NULL;
        if (r > 0 && (s = parse_object(p, c->configs[i], &j)) == HUM_OK)
            cJSON_Delete(j);
        free(p);
        if (s != HUM_OK)
            return s;
    }
    return HUM_OK;
}

static hum_status open_checkpoint(hum_checkpoint *c)
{
    struct stat sb;
    if (stat(c->path, &sb) != 0)
        return hum_fail(HUM_ERR_IO, "%s: %s", c->path, strerror(errno));
    hum_status s;
    if (S_ISDIR(sb.st_mode)) {
        c->dir = strdup(c->path);
        char *ip = c->dir ? join(c->dir, index_file) : NULL;
        char *text = NULL;
        int r = ip ? read_text(ip, &text) : -1;
        if (!ip)
            s = hum_fail(HUM_ERR_OUT_OF_MEMORY, "out of memory");
        else
            s = r < 0 ? HUM_ERR_IO : r > 0 ? open_indexed(c, ip, text) : open_all(c);
        free(text);
        free(ip);
    } else {
        const char *slash = strrchr(c->path, '/');
        c->dir = slash ? strndup(c->path, (size_t)(slash - c->path) + (slash == c->path)) : strdup(".");
        s = c->dir ? add_file(c, c->path) : hum_fail(HUM_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (s == HUM_OK)
        s = build_index(c);
    if (s == HUM_OK)
        s = read_configs(c);
    return s;
}

void hum_checkpoint_close(hum_checkpoint *c)
{
    if (!c)
        return;
    for (int32_t f = 0; f < c->file_count; f++)
        hum_safetensors_close(c->files[f]);
    for (int i = 0; i < NUM_CONFIGS; i++)
        free(c->configs[i]);
    free(c->files);
    free(c->entries);
    free(c->dir);
    free(c->path);
    free(c);
}

/* The directory `path` is (or would be) an entry of, into out (stat). */
static int parent_stat(const char *path, struct stat *out)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return stat(".", out);
    char *dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
    const int r = dir ? stat(dir, out) : -1;
    free(dir);
    return r;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int32_t hum_checkpoint_reads(const char *checkpoint, const char *path)
{
    struct stat ck, dir, parent, file;
    if (!checkpoint || !path || stat(checkpoint, &ck) != 0 || parent_stat(path, &parent) != 0)
        return 0;
    if (S_ISDIR(ck.st_mode))
        return same_file(&ck, &parent);
    if (stat(path, &file) == 0 && same_file(&file, &ck))
        return 1;
    if (parent_stat(checkpoint, &dir) != 0 || !same_file(&dir, &parent))
        return 0;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    for (int i = 0; i < NUM_CONFIGS; i++)
        if (strcmp(base, config_files[i]) == 0)
            return 1;
    return 0;
}

hum_status hum_checkpoint_open(const char *path, hum_checkpoint **out)
{
    if (!path || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_checkpoint_open: NULL argument");
    *out = NULL;
    hum_checkpoint *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    hum_status s = open_checkpoint(c);
    if (s != HUM_OK) {
        hum_checkpoint_close(c);
        return s;
    }
    *out = c;
    return HUM_OK;
}

const char *hum_checkpoint_path(const hum_checkpoint *c) { return c ? c->path : NULL; }

int64_t hum_checkpoint_tensor_count(const hum_checkpoint *c) { return c ? c->count : 0; }

hum_status hum_checkpoint_tensor(const hum_checkpoint *c, int64_t index, hum_safetensors_tensor *out)
{
    if (!c || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_checkpoint_tensor: NULL argument");
    if (index < 0 || index >= c->count)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: tensor index %lld outside [0, %lld)", c->path, (long long)index,
                        (long long)c->count);
    return hum_safetensors_get(c->files[c->entries[index].file], c->entries[index].index, out);
}

static const ck_entry *lookup(const hum_checkpoint *c, const char *name)
{
    ck_entry key = {.name = name};
    return c && name ? bsearch(&key, c->entries, (size_t)c->count, sizeof key, by_name) : NULL;
}

hum_status hum_checkpoint_find(const hum_checkpoint *c, const char *name, hum_safetensors_tensor *out)
{
    if (!c || !name || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_checkpoint_find: NULL argument");
    const ck_entry *e = lookup(c, name);
    if (!e)
        return hum_fail(HUM_ERR_FORMAT, "%s: no tensor \"%s\"", c->path, hum_printable(name));
    return hum_safetensors_get(c->files[e->file], e->index, out);
}

int32_t hum_checkpoint_has(const hum_checkpoint *c, const char *name) { return lookup(c, name) != NULL; }

const char *hum_checkpoint_config(const hum_checkpoint *c, const char *file_name)
{
    for (int i = 0; c && file_name && i < NUM_CONFIGS; i++)
        if (strcmp(config_files[i], file_name) == 0)
            return c->configs[i];
    return NULL;
}
