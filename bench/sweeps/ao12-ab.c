/* Session 11 (ao12, issue 7): kernel variants of one layer pair timed interleaved in ONE process,
 * so that the ~1 % drift between processes does not decide a 2 % difference.
 *
 *   ao12-ab ROUNDS SECONDS SPEC NAME=KDIR[@PDIR] ...   (SPEC an act-order layer, actorder=1; KDIR a
 *       kernels/ tree for HUM_KERNEL_PATH, "-": the kernels embedded in libhum; PDIR a directory
 *       for HUM_POLICY_PATH, none: the built-in policies)
 *
 * The plain layer is the act-order weight without its permutation (the same codes and scales,
 * the groups in stored order): one random weight instead of two, seconds of host time less.
 * Each variant prepares both layers in a runtime of its own (policies load when a runtime is
 * made) with HUM_KERNEL_PATH=KDIR (kernels are compiled at prepare; the cache keys hash the
 * sources, so variants share a cubin only where their sources are the same), every layer is checked at
 * M = 1 and 16 against the float64 reference (all 16 rows), then up to ROUNDS rounds (none started
 * after SECONDS from the program's start) time every
 * (variant, layer, M) in an order rotated each round with hum bench's protocol (bench_time: CUDA
 * graph replay, L2 flushed, median of 50 after 10). Prints each round's figures, then per variant
 * the median over rounds and the ratio act-order / plain at M 1 and 16 (median of the rounds'
 * ratios), and each figure's difference from the first variant's (median of the rounds'
 * differences: both timed in the same round).
 *
 * Built against a Release build (static libhum and the test support library, which holds the
 * CLI's bench helpers):
 *   cc -O2 -Iruntime/include -Iruntime/cli bench/sweeps/ao12-ab.c build/tests/libhum_test_support.a \
 *      build/runtime/libhum.a $(link flags of build/tests/CMakeFiles/test_test_gemm.dir/link.txt)
 */
#include "bench_calls.h"
#include "bench_check.h"
#include "bench_io.h"
#include "bench_timer.h"
#include "hum/hum.h"
#include "hum/hum_tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_VARIANTS = 10, MAX_ROUNDS = 64, LAYERS = 2, MS = 2 };
static const int64_t kM[MS] = {1, 16};
static const char *kLayerName[LAYERS] = {"plain", "ao"};

typedef struct variant {
    const char *name, *dir, *policies;
    hum_runtime *rt;
    hum_layer *layer[LAYERS];
    hum_workspace *ws[LAYERS];
    double us[LAYERS][MS][MAX_ROUNDS];
} variant;

static int fail(const char *what)
{
    fprintf(stderr, "ao12-ab: %s: %s\n", what, hum_last_error());
    return 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
    double s[MAX_ROUNDS];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

int main(int argc, char **argv)
{
    const double t0 = now_s();
    if (argc < 5) {
        fprintf(stderr, "usage: ao12-ab ROUNDS SECONDS SPEC NAME=DIR ...\n");
        return 2;
    }
    const int max_rounds = atoi(argv[1]);
    const double seconds = atof(argv[2]);
    const int nv = argc - 4;
    if (max_rounds < 1 || max_rounds > MAX_ROUNDS || nv > MAX_VARIANTS) {
        fprintf(stderr, "ao12-ab: 1..%d rounds, at most %d variants\n", MAX_ROUNDS, MAX_VARIANTS);
        return 2;
    }
    static variant v[MAX_VARIANTS];
    for (int i = 0; i < nv; i++) {
        char *eq = strchr(argv[4 + i], '=');
        if (!eq) {
            fprintf(stderr, "ao12-ab: %s is not NAME=KDIR[@PDIR]\n", argv[4 + i]);
            return 2;
        }
        *eq = '\0';
        v[i].name = argv[4 + i];
        v[i].dir = eq + 1;
        char *at = strchr(v[i].dir, '@');
        if (at) {
            *at = '\0';
            v[i].policies = at + 1;
        }
    }
    hum_standard_weight w[LAYERS];
    hum_layer_spec spec;
    if (hum_layer_spec_parse(argv[3], &spec) != HUM_OK || hum_layer_spec_weight(&spec, 1234, &w[1]) != HUM_OK)
        return fail(argv[3]);
    if (!w[1].k_perm.data) {
        fprintf(stderr, "ao12-ab: %s is not an act-order layer\n", argv[3]);
        return 2;
    }
    w[0] = w[1];
    w[0].k_perm = (hum_tensor){0};
    const int64_t n = w[0].n, k = w[0].k;
    const hum_dtype dt = spec.output_dtype;
    hum_runtime *rt;
    hum_device_info dev;
    if (hum_runtime_create(NULL, &rt) != HUM_OK || hum_runtime_device(rt, &dev) != HUM_OK)
        return fail("runtime");
    printf("ao12-ab: %s and the same without act-order on %s, up to %d rounds until %.0f s\n", argv[3], dev.name,
           max_rounds, seconds);
    bench_timer timer;
    bench_io io;
    if (bench_timer_create(dev.ordinal, dev.l2_bytes, &timer) != HUM_OK ||
        bench_io_create(dev.ordinal, dt, n, k, 16, &io) != HUM_OK)
        return fail("timer / buffers");
    /* A: 16 random rows; the reference of all 16 rows per layer, shared by every variant */
    uint16_t *a = malloc((size_t)(16 * k) * 2), *c = malloc((size_t)(16 * n) * 2);
    double *ref[LAYERS];
    int64_t rows[16];
    for (int r = 0; r < 16; r++)
        rows[r] = r;
    bench_rng rng = bench_rng_seeded(99);
    if (bench_random_activations(&rng, dt, 16 * k, a) != HUM_OK)
        return fail("activations");
    for (int l = 0; l < LAYERS; l++) {
        ref[l] = malloc((size_t)(16 * n) * sizeof(double));
        if (bench_check_reference(&w[l], dt, a, rows, 16, ref[l]) != HUM_OK)
            return fail("reference");
    }
    printf("weights and references: %.1f s\n", now_s() - t0);
    int bad_checks = 0;
    for (int i = 0; i < nv; i++) {
        if (strcmp(v[i].dir, "-") == 0)
            unsetenv("HUM_KERNEL_PATH");
        else
            setenv("HUM_KERNEL_PATH", v[i].dir, 1);
        if (v[i].policies)
            setenv("HUM_POLICY_PATH", v[i].policies, 1);
        else
            unsetenv("HUM_POLICY_PATH");
        if (hum_runtime_create(NULL, &v[i].rt) != HUM_OK)
            return fail(v[i].name);
        for (int l = 0; l < LAYERS; l++) {
            hum_layer_options lo = {.activation_dtype = dt};
            int64_t bytes;
            if (hum_layer_from_standard(v[i].rt, &w[l], &lo, &v[i].layer[l]) != HUM_OK ||
                hum_layer_prepare(v[i].layer[l]) != HUM_OK ||
                hum_layer_workspace_size(v[i].layer[l], 16, &bytes) != HUM_OK ||
                hum_workspace_create(v[i].rt, NULL, bytes, &v[i].ws[l]) != HUM_OK)
                return fail(v[i].name);
            for (int j = 0; j < MS; j++) {
                double err;
                int64_t bad;
                if (bench_io_forward(&io, v[i].layer[l], a, kM[j], c) != HUM_OK ||
                    bench_check_against(dt, n, c, kM[j], rows, kM[j], ref[l], &err, &bad) != HUM_OK)
                    return fail("check");
                const int ok = bad == 0 && err <= bench_check_tolerance(dt);
                bad_checks += !ok;
                printf("check %-8s %-5s M = %2lld: relative error %.3e against float64 (%lld rows)%s\n", v[i].name,
                       kLayerName[l], (long long)kM[j], err, (long long)kM[j], ok ? "" : "  FAIL");
            }
        }
    }
    unsetenv("HUM_KERNEL_PATH");
    printf("variants prepared and checked: %.1f s\n", now_s() - t0);
    if (hum_memcpy_htod(io.a, a, (size_t)(16 * k) * 2) != HUM_OK)
        return fail("upload");
    fflush(stdout);
    const int cells = nv * LAYERS * MS;
    int rounds = 0;
    for (int r = 0; r < max_rounds && (r < 1 || now_s() - t0 < seconds); r++, rounds++) {
        printf("round %2d (%.1f s):", r, now_s() - t0);
        for (int q = 0; q < cells; q++) {
            const int cell = (q + r * 3) % cells; /* rotated: no cell always follows the same one */
            const int i = cell / (LAYERS * MS), l = cell / MS % LAYERS, j = cell % MS;
            bench_hum_call h = {.layer = v[i].layer[l], .ws = v[i].ws[l]};
            bench_io_views(&io, kM[j], &h.a, &h.c);
            bench_timing t;
            if (bench_time(&timer, bench_enqueue_hum, &h, 10, 50, &t) != HUM_OK)
                return fail("time");
            v[i].us[l][j][r] = t.median_us;
        }
        for (int i = 0; i < nv; i++)
            printf("  %s %.2f/%.2f %.2f/%.2f", v[i].name, v[i].us[0][0][r], v[i].us[0][1][r], v[i].us[1][0][r],
                   v[i].us[1][1][r]);
        printf("\n");
        fflush(stdout);
    }
    printf("\nmedian over %d rounds, us (plain M1, plain M16, ao M1, ao M16), ratio ao/plain M1 M16 (median of the "
           "rounds' ratios)\n", rounds);
    for (int i = 0; i < nv; i++) {
        double ratio[MS][MAX_ROUNDS];
        for (int j = 0; j < MS; j++)
            for (int r = 0; r < rounds; r++)
                ratio[j][r] = v[i].us[1][j][r] / v[i].us[0][j][r];
        printf("%-8s %7.2f %7.2f %7.2f %7.2f   %.4f %.4f\n", v[i].name, median(v[i].us[0][0], rounds),
               median(v[i].us[0][1], rounds), median(v[i].us[1][0], rounds), median(v[i].us[1][1], rounds),
               median(ratio[0], rounds), median(ratio[1], rounds));
    }
    /* paired: each round's figure minus the first variant's in the same round */
    printf("\nagainst %s, median of the rounds' differences, us (plain M1, plain M16, ao M1, ao M16)\n", v[0].name);
    for (int i = 1; i < nv; i++) {
        double d[LAYERS][MS][MAX_ROUNDS];
        for (int l = 0; l < LAYERS; l++)
            for (int j = 0; j < MS; j++)
                for (int r = 0; r < rounds; r++)
                    d[l][j][r] = v[i].us[l][j][r] - v[0].us[l][j][r];
        printf("%-8s %+7.2f %+7.2f %+7.2f %+7.2f\n", v[i].name, median(d[0][0], rounds), median(d[0][1], rounds),
               median(d[1][0], rounds), median(d[1][1], rounds));
    }
    printf("checks failed: %d\n", bad_checks);
    hum_standard_free(&w[1]);
    return bad_checks ? 3 : 0;
}
