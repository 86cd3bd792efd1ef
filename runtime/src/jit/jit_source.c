#include "jit_source.h"

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char constants_name[] = "hum_constants.h";

enum { MAX_INCLUDE_DEPTH = 64 };

/* Finds the next line of the form `# include "name"` at or after *pos. */
static int next_include(const char *text, size_t size, size_t *pos, const char **name, size_t *len)
{
    for (size_t i = *pos; i < size;) {
        size_t end = i;
        while (end < size && text[end] != '\n')
            end++;
        size_t j = i;
        while (j < end && (text[j] == ' ' || text[j] == '\t'))
            j++;
        if (j < end && text[j] == '#') {
            j++;
            while (j < end && (text[j] == ' ' || text[j] == '\t'))
                j++;
            if (end - j > 7 && memcmp(text + j, "include", 7) == 0) {
                j += 7;
                while (j < end && (text[j] == ' ' || text[j] == '\t'))
                    j++;
                const char *close = j < end && text[j] == '"' ? memchr(text + j + 1, '"', end - j - 1) : NULL;
                if (close) {
                    *name = text + j + 1;
                    *len = (size_t)(close - *name);
                    *pos = end + 1;
                    return 1;
                }
            }
        }
        i = end + 1;
    }
    *pos = size;
    return 0;
}

static hum_status add_header(hum_jit_sources *s, char *name, const char *text, size_t size, hum_resource *file)
{
    int32_t n = s->header_count;
    /* The four arrays grow together: capacity 4, then doubling when full. */
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        size_t cap = n ? (size_t)n * 2 : 4;
        const char **names = realloc(s->header_names, cap * sizeof *names);
        if (names)
            s->header_names = names;
        const char **texts = realloc(s->header_texts, cap * sizeof *texts);
        if (texts)
            s->header_texts = texts;
        size_t *sizes = realloc(s->header_sizes, cap * sizeof *sizes);
        if (sizes)
            s->header_sizes = sizes;
        hum_resource *files = realloc(s->header_files, cap * sizeof *files);
        if (files)
            s->header_files = files;
        if (!names || !texts || !sizes || !files) {
            free(name);
            if (file)
                hum_resource_free(file);
            return hum_fail(HUM_ERR_OUT_OF_MEMORY, "collecting kernel headers: out of memory");
        }
    }
    s->header_names[n] = name;
    s->header_texts[n] = text;
    s->header_sizes[n] = size;
    if (file)
        s->header_files[n] = *file;
    else
        memset(&s->header_files[n], 0, sizeof s->header_files[n]);
    s->header_count = n + 1;
    return HUM_OK;
}

static hum_status collect(hum_jit_sources *s, const hum_jit_request *req, const char *from, const char *text,
                          size_t size, int depth)
{
    if (depth > MAX_INCLUDE_DEPTH)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: #include nesting deeper than %d (a cycle?)", from, MAX_INCLUDE_DEPTH);
    size_t pos = 0, len;
    const char *at;
    while (next_include(text, size, &pos, &at, &len)) {
        int seen = 0;
        for (int32_t i = 0; i < s->header_count && !seen; i++)
            seen = strlen(s->header_names[i]) == len && memcmp(s->header_names[i], at, len) == 0;
        if (seen)
            continue;
        char *name = strndup(at, len);
        if (!name)
            return hum_fail(HUM_ERR_OUT_OF_MEMORY, "collecting kernel headers: out of memory");
        hum_status st;
        if (strcmp(name, constants_name) == 0) {
            if (!req->constants) {
                free(name);
                return hum_fail(HUM_ERR_INVALID_ARG, "%s includes %s but the request has no constants text", from,
                                constants_name);
            }
            st = add_header(s, name, req->constants, strlen(req->constants), NULL);
            if (st == HUM_OK)
                st = collect(s, req, constants_name, req->constants, strlen(req->constants), depth + 1);
        } else {
            if (name[0] == '/' || strstr(name, "..")) {
                hum_status bad =
                    hum_fail(HUM_ERR_INVALID_ARG, "%s includes \"%s\": kernel headers are named relative to kernels/",
                             from, name);
                free(name);
                return bad;
            }
            char relpath[1024];
            snprintf(relpath, sizeof relpath, "kernels/%s", name);
            hum_resource file;
            if (hum_resource_read(relpath, &file) != HUM_OK) {
                /* Not a kernel header: NVRTC looks for it on its include path. */
                hum_clear_error();
                free(name);
                continue;
            }
            const char *origin_text = file.data;
            size_t origin_size = file.size;
            st = add_header(s, name, origin_text, origin_size, &file);
            if (st == HUM_OK)
                st = collect(s, req, s->header_names[s->header_count - 1], origin_text, origin_size, depth + 1);
        }
        if (st != HUM_OK)
            return st;
    }
    return HUM_OK;
}

hum_status hum_jit_sources_load(const hum_jit_request *req, hum_jit_sources *out)
{
    memset(out, 0, sizeof *out);
    hum_status st = hum_resource_read(req->source, &out->source);
    if (st == HUM_OK)
        st = collect(out, req, req->source, out->source.data, out->source.size, 0);
    if (st != HUM_OK)
        hum_jit_sources_free(out);
    return st;
}

void hum_jit_sources_free(hum_jit_sources *s)
{
    for (int32_t i = 0; i < s->header_count; i++) {
        free((char *)s->header_names[i]);
        if (s->header_files[i].data)
            hum_resource_free(&s->header_files[i]);
    }
    free(s->header_names);
    free(s->header_texts);
    free(s->header_sizes);
    free(s->header_files);
    hum_resource_free(&s->source);
    memset(s, 0, sizeof *s);
}
