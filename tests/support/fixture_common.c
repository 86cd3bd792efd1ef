/* Containers and reference bit packing for the fixture writers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fixture.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fx_name(const char *layer, const char *suffix)
{
    static char buf[8][16384];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s.%s", layer, suffix);
    return b;
}

void fx_add(fx_file *f, const char *name, const char *dtype_name, const void *data, int rank, ...)
{
    hum_safetensors_tensor *t = &f->t[f->n++];
    memset(t, 0, sizeof *t);
    t->name = strdup(name);
    t->dtype_name = dtype_name;
    t->rank = rank;
    va_list ap;
    va_start(ap, rank);
    int64_t numel = 1;
    for (int d = 0; d < rank; d++)
        numel *= t->shape[d] = va_arg(ap, int64_t);
    va_end(ap);
    int32_t bits = 0;
    hum_safetensors_dtype(dtype_name, &bits, NULL);
    size_t bytes = (size_t)(numel * bits / 8);
    void *copy = malloc(bytes ? bytes : 1);
    if (bytes)
        memcpy(copy, data, bytes);
    t->data = copy;
}

int fx_flush(fx_file *f, const char *dir, const char *file_name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file_name);
    const char *meta[] = {"format", "pt", NULL};
    hum_status s = hum_safetensors_write(path, f->t, f->n, meta);
    if (s != HUM_OK)
        fprintf(stderr, "fx_flush: %s\n", hum_last_error());
    for (int i = 0; i < f->n; i++) {
        free((void *)f->t[i].name);
        free((void *)f->t[i].data);
    }
    f->n = 0;
    return s == HUM_OK ? 0 : -1;
}

void fx_add_dense(fx_file *f)
{
    uint16_t emb[4 * 8], norm[8];
    for (int i = 0; i < 32; i++)
        emb[i] = fx_bf16_bits((i % 7) * 0.25 - 0.5);
    for (int i = 0; i < 8; i++)
        norm[i] = fx_bf16_bits(1.0);
    fx_add(f, "model.embed_tokens.weight", "BF16", emb, 2, (int64_t)4, (int64_t)8);
    fx_add(f, "model.norm.weight", "BF16", norm, 1, (int64_t)8);
    fx_add(f, "lm_head.weight", "BF16", emb, 2, (int64_t)4, (int64_t)8);
}

int fx_write_json(const char *dir, const char *name, const char *fmt, ...)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    return fclose(f);
}

int fx_merge(const char *dir, const char *const *parts, int count)
{
    static const char *const configs[] = {"config.json", "hf_quant_config.json", "quantize_config.json",
                                          "quant_config.json"};
    hum_checkpoint **open = calloc((size_t)count, sizeof *open);
    int64_t total = 0;
    int rc = open ? 0 : -1;
    for (int p = 0; rc == 0 && p < count; p++) {
        rc = hum_checkpoint_open(parts[p], &open[p]) == HUM_OK ? 0 : -1;
        total += rc == 0 ? hum_checkpoint_tensor_count(open[p]) : 0;
    }
    hum_safetensors_tensor *all = rc == 0 ? calloc((size_t)total + 1, sizeof *all) : NULL;
    int64_t kept = 0;
    rc |= all ? 0 : -1;
    for (int p = 0; rc == 0 && p < count; p++)
        for (int64_t i = 0; i < hum_checkpoint_tensor_count(open[p]); i++) {
            hum_safetensors_tensor t;
            hum_checkpoint_tensor(open[p], i, &t);
            int64_t seen = 0;
            while (seen < kept && strcmp(all[seen].name, t.name) != 0)
                seen++;
            if (seen == kept)
                all[kept++] = t;
        }
    if (rc == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/model.safetensors", dir);
        const char *meta[] = {"format", "pt", NULL};
        rc = hum_safetensors_write(path, all, kept, meta) == HUM_OK ? 0 : -1;
    }
    for (size_t c = 0; rc == 0 && c < sizeof configs / sizeof configs[0]; c++) {
        const char *text = hum_checkpoint_config(open[0], configs[c]);
        if (text)
            rc = fx_write_json(dir, configs[c], "%s", text);
    }
    if (rc != 0)
        fprintf(stderr, "fx_merge: %s\n", hum_last_error());
    for (int p = 0; open && p < count; p++)
        hum_checkpoint_close(open[p]);
    free(open);
    free(all);
    return rc;
}

void fx_pack_dense(const uint8_t *vals, int64_t count, int bits, uint32_t *words)
{
    int64_t nwords = (count * bits + 31) / 32;
    memset(words, 0, (size_t)nwords * 4);
    for (int64_t i = 0; i < count; i++)
        for (int b = 0; b < bits; b++)
            if (vals[i] >> b & 1) {
                int64_t bit = i * bits + b;
                words[bit / 32] |= 1u << (bit % 32);
            }
}

void fx_pack_sparse(const uint8_t *vals, int64_t count, int bits, uint32_t *words)
{
    int64_t per = 32 / bits, nwords = (count + per - 1) / per;
    memset(words, 0, (size_t)nwords * 4);
    for (int64_t i = 0; i < count; i++)
        for (int b = 0; b < bits; b++)
            if (vals[i] >> b & 1)
                words[i / per] |= 1u << ((i % per) * bits + b);
}

/* Exact encoders for values the tests pick from the format's own grid. */
uint16_t fx_f16_bits(double v)
{
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    uint16_t c = sign;
    if (a != 0) {
        int x;
        frexp(a, &x);
        int e = x - 1; /* a = 1.m * 2^e */
        if (e >= -14)
            c |= (uint16_t)(((e + 15) << 10) | (int)((ldexp(a, -e) - 1.0) * 1024.0));
        else
            c |= (uint16_t)ldexp(a, 24);
    }
    if (fx_f16_value(c) != v || a > 65504) {
        fprintf(stderr, "fx_f16_bits: %g is not a float16 value\n", v);
        abort();
    }
    return c;
}

uint16_t fx_bf16_bits(double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((double)f != v || (u & 0xffff)) {
        fprintf(stderr, "fx_bf16_bits: %g is not a bfloat16 value\n", v);
        abort();
    }
    return (uint16_t)(u >> 16);
}

double fx_f16_value(uint16_t c)
{
    int s = c >> 15, e = (c >> 10) & 31, m = c & 1023;
    double v = e ? ldexp(1.0 + m / 1024.0, e - 15) : ldexp(m / 1024.0, -14);
    return s ? -v : v;
}

double fx_bf16_value(uint16_t c)
{
    uint32_t u = (uint32_t)c << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

double fx_e4m3_value(uint8_t c)
{
    int s = c >> 7, e = (c >> 3) & 15, m = c & 7;
    double v = e ? ldexp(1.0 + m / 8.0, e - 7) : ldexp(m / 8.0, -6);
    return s ? -v : v;
}

double fx_e2m1_value(uint8_t c)
{
    static const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    return c & 8 ? -mag[c & 7] : mag[c & 7];
}
