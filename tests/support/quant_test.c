/* Test helpers of the quantization core (see quant_test.h). */
#include "quant_test.h"

#include "hum/hum_tools.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int quant_failures = 0;

int quant_check_at(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
{
    if (ok)
        return 1;
    quant_failures++;
    if (quant_failures <= 50) {
        fprintf(stderr, "%s:%d: check failed: %s: ", file, line, expr);
        va_list ap;
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    return 0;
}

static long selected_cases = 0; /* cases that quant_test_selected let run */

int quant_test_result(const char *test_name)
{
    const char *shard = getenv("HUM_TEST_SHARD");
    QUANT_CHECK(!shard || !*shard || selected_cases > 0, "shard %s ran no case (more shards than cases?)", shard);
    if (quant_failures == 0) {
        printf("%s: all checks passed\n", test_name);
        return 0;
    }
    fprintf(stderr, "%s: %d check(s) failed\n", test_name, quant_failures);
    return 1;
}

quant_rng quant_rng_seeded(uint64_t seed)
{
    quant_rng r = {seed};
    return r;
}

quant_rng quant_rng_fresh(const char *test_name)
{
    const char *env = getenv("HUM_TEST_SEED");
    uint64_t seed;
    if (env != NULL && *env != '\0') {
        seed = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        timespec_get(&ts, TIME_UTC);
        seed = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec;
    }
    printf("%s: seed %" PRIu64 " (replay with HUM_TEST_SEED=%" PRIu64 ")\n", test_name, seed, seed);
    return quant_rng_seeded(seed);
}

/* HUM_TEST_SHARD "i/n": whether the next case named falls in shard i (0 <= i < n), counting
 * every case the test names, selected or not, in its fixed order. A malformed value is a
 * failure of the test, not a silent full run. */
static int in_shard(void)
{
    static long next = 0;
    const char *env = getenv("HUM_TEST_SHARD");
    const long index = next++;
    if (!env || !*env)
        return 1;
    int i = -1, n = 0, used = 0;
    if (sscanf(env, "%d/%d%n", &i, &n, &used) != 2 || env[used] != '\0' || n < 1 || i < 0 || i >= n) {
        QUANT_CHECK(0, "HUM_TEST_SHARD=\"%s\": expected i/n with 0 <= i < n", env);
        return 0;
    }
    return index % n == i;
}

static int named_in(const char *name, const char *want)
{
    for (const char *p = want; *p;) { /* each comma-separated piece */
        const size_t len = strcspn(p, ",");
        for (const char *at = name; len && *at; at++)
            if (strncmp(at, p, len) == 0)
                return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

int quant_test_selected(const char *name)
{
    const char *want = getenv("HUM_TEST_CASES");
    if (!in_shard() || (want && *want && !named_in(name, want)))
        return 0;
    selected_cases++;
    return 1;
}

/* splitmix64 */
uint64_t quant_rng_next(quant_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double quant_rng_uniform(quant_rng *r) { return (double)(quant_rng_next(r) >> 11) * 0x1p-53; }

int64_t quant_rng_below(quant_rng *r, int64_t n) { return (int64_t)(quant_rng_next(r) % (uint64_t)n); }

double quant_rng_normal(quant_rng *r)
{
    double u1 = quant_rng_uniform(r), u2 = quant_rng_uniform(r);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
}

void quant_fill_normal_f32(quant_rng *r, float *out, int64_t count, double stddev)
{
    for (int64_t i = 0; i < count; i++)
        out[i] = (float)(quant_rng_normal(r) * stddev);
}

void quant_fill_normal_f64(quant_rng *r, double *out, int64_t count, double stddev)
{
    for (int64_t i = 0; i < count; i++)
        out[i] = quant_rng_normal(r) * stddev;
}

int quant_fill_activations(quant_rng *r, uint32_t dtype, int64_t count, double stddev, uint16_t *codes,
                           double *values)
{
    if (dtype != HUM_DTYPE_FLOAT16 && dtype != HUM_DTYPE_BFLOAT16) {
        fprintf(stderr, "quant_fill_activations: dtype %s (expected float16 or bfloat16)\n", hum_dtype_name(dtype));
        return -1;
    }
    quant_fill_normal_f64(r, values, count, stddev);
    if (hum_dtype_encode(dtype, values, count, codes) != HUM_OK ||
        hum_dtype_decode(dtype, codes, count, values) != HUM_OK) {
        fprintf(stderr, "quant_fill_activations: %s\n", hum_last_error());
        return -1;
    }
    return 0;
}

void quant_poison(void *data, size_t bytes) { memset(data, 0xFF, bytes); }

double quant_rel_error(const double *out, const double *ref, int64_t count)
{
    double num = 0.0, den = 0.0;
    for (int64_t i = 0; i < count; i++) {
        const double d = out[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
    }
    return den > 0.0 ? sqrt(num / den) : sqrt(num);
}

double quant_rel_error_rounded(hum_dtype c, const uint16_t *codes, const double *ref, int64_t count, double *got,
                               uint16_t *rounded, double *ref_r, int64_t *unwritten)
{
    hum_dtype_decode(c, codes, count, got);
    hum_dtype_encode(c, ref, count, rounded);
    hum_dtype_decode(c, rounded, count, ref_r);
    *unwritten = 0;
    for (int64_t i = 0; i < count; i++)
        *unwritten += !isfinite(got[i]);
    if (*unwritten)
        return -1;
    double num = 0.0, den = 0.0;
    for (int64_t i = 0; i < count; i++) {
        num += (got[i] - ref_r[i]) * (got[i] - ref_r[i]);
        den += ref[i] * ref[i];
    }
    return den > 0.0 ? sqrt(num / den) : sqrt(num);
}

double quant_rel_error_f32(const float *out, const double *ref, int64_t count)
{
    double num = 0.0, den = 0.0;
    for (int64_t i = 0; i < count; i++) {
        const double d = (double)out[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
    }
    return den > 0.0 ? sqrt(num / den) : sqrt(num);
}

double quant_pow2(int k)
{
    double v = 1.0;
    for (; k > 0; k--)
        v *= 2.0;
    for (; k < 0; k++)
        v *= 0.5;
    return v;
}

hum_tensor quant_matrix(void *data, hum_dtype dtype, int64_t rows, int64_t cols, hum_memory memory)
{
    hum_tensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.dtype = dtype;
    t.rank = 2;
    t.shape[0] = rows;
    t.shape[1] = cols;
    t.memory = memory;
    return t;
}

enum { SPEC_WEIGHTS = 48 };
static struct {
    char spec[128];
    uint64_t seed;
    hum_standard_weight w;
} spec_weights[SPEC_WEIGHTS];
static int spec_weight_count;

const hum_standard_weight *quant_spec_weight(const char *spec, uint64_t seed)
{
    for (int i = 0; i < spec_weight_count; i++)
        if (spec_weights[i].seed == seed && !strcmp(spec_weights[i].spec, spec))
            return &spec_weights[i].w;
    if (!QUANT_CHECK(spec_weight_count < SPEC_WEIGHTS && strlen(spec) < sizeof spec_weights[0].spec,
                     "more than %d spec weights, or a spec over %zu characters: %s", SPEC_WEIGHTS,
                     sizeof spec_weights[0].spec - 1, spec))
        return NULL;
    hum_layer_spec s;
    hum_standard_weight *w = &spec_weights[spec_weight_count].w;
    if (!QUANT_CHECK(hum_layer_spec_parse(spec, &s) == HUM_OK && hum_layer_spec_weight(&s, seed, w) == HUM_OK,
                     "%s: %s", spec, hum_last_error()))
        return NULL;
    snprintf(spec_weights[spec_weight_count].spec, sizeof spec_weights[0].spec, "%s", spec);
    spec_weights[spec_weight_count].seed = seed;
    return &spec_weights[spec_weight_count++].w;
}

void quant_spec_weights_free(void)
{
    for (int i = 0; i < spec_weight_count; i++)
        hum_standard_free(&spec_weights[i].w);
    spec_weight_count = 0;
}
