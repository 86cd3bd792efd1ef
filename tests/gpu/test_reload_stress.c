/* Policy reloads reaching prepared layers under load, on a GPU. Two shared layers (uint4 g128,
 * one act-order); 8 threads, each with its own stream and workspace, call forward in a loop with
 * random M in 1..4096 and check every output against the float64 reference (poisoned first);
 * meanwhile the main thread reloads 50 times, alternating two site policies that choose
 * different kernels for the same M ranges (on sm_90 the second one runs wgmma from M = 33),
 * and one reload in ten fails on purpose (a file that does not parse, a tuning the kernel
 * refuses), which must change nothing. Checked: no forward fails, the tables in force alternate
 * (policy name, tiles, generation), a failed reload leaves them as they were, and as many
 * modules are loaded after as before. Printed: forwards, reloads, the longest forward call
 * while a reload ran (a forward never waits for one: no NVRTC compile may show there) and the
 * reload times. Skipped (77) without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include "cuda_driver.h"
#include "device.h"
#include "gemm_test.h"
#include "internal.h"
#include "rt_test.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { THREADS = 8, RELOADS = 50, LAYERS = 2, M_MAX = 4096, N = 512, K = 1024 };

static const char *const SPECS[LAYERS] = {"n=512,k=1024,w=uint4,a=float16,group=128",
                                          "n=512,k=1024,w=uint4,a=float16,group=128,actorder=1"};

/* Policy `name`: three M ranges; `alt` picks the second set of tiles, and wgmma on sm_90. */
static void policy_text(int alt, char *out, size_t cap)
{
    snprintf(
        out, cap,
        "local policy = require('hum.policy')\n"
        "local mma = policy.mma_tuning\n"
        "local function wg(bm, bk, stages)\n"
        "  local t = mma(bm, 128, bk, bm, 16, bk, stages)\n"
        "  t.kernel = 'wgmma'\n"
        "  return t\n"
        "end\n"
        "return {\n"
        "  name = '%s',\n"
        "  applies = function(device) return true end,\n"
        "  tunings = function(device, layer)\n"
        "    if %d == 0 then\n"
        "      return policy.ranges({ { 32, mma(16, 128, 256, 16, 32, 128, 4) },\n"
        "                             { 256, mma(64, 128, 128, 64, 32, 64, 4) },\n"
        "                             { math.huge, mma(128, 256, 128, 64, 64, 128, 3) } })\n"
        "    end\n"
        "    local hopper = device.sm == 90\n"
        "    return policy.ranges({ { 32, mma(32, 128, 256, 32, 32, 64, 4) },\n"
        "                           { 256, hopper and wg(64, 128, 5) or mma(32, 128, 128, 32, 32, 64, 4) },\n"
        "                           { math.huge, hopper and wg(256, 64, 4) or mma(64, 256, 64, 64, 64, 64, 3) } })\n"
        "  end,\n"
        "}\n",
        alt ? "stress-b" : "stress-a", alt);
}

static const char *const BROKEN[2] = {
    "return { name = 'broken', applies = function(device) return true end,\n", /* does not parse */
    "return { name = 'stress-bad', applies = function(device) return true end,\n"
    "  tunings = function(device, layer) return require('hum.policy').ranges({ { math.huge,\n"
    "    require('hum.policy').mma_tuning(64, 128, 96, 64, 32, 32, 4) } }) end }\n", /* block K 96 */
};

typedef struct shared {
    hum_runtime *rt;
    hum_layer *layer[LAYERS];
    double *ref[LAYERS]; /* [M_MAX][N] */
    void *d_a;           /* [M_MAX][K] */
    atomic_int stop, reloading;
    atomic_long forwards;
} shared;

typedef struct worker {
    shared *s;
    int id;
    long forwards, failures;
    double longest_us, longest_in_reload_us;
    char first_error[256];
} worker;

static void fail(worker *w, const char *what)
{
    if (w->failures++ == 0)
        snprintf(w->first_error, sizeof w->first_error, "%s", what);
}

static void *work(void *arg)
{
    worker *w = arg;
    shared *s = w->s;
    const hum_cuda_api *cu = hum_cuda();
    CUcontext ctx;
    CUstream stream = NULL;
    hum_workspace *ws = NULL;
    int64_t bytes = 0;
    void *d_c = NULL;
    uint16_t *c = malloc((size_t)M_MAX * N * 2);
    double *got = malloc((size_t)M_MAX * N * sizeof *got);
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(w->id + 1);
    if (!c || !got || hum_device_activate(0, &ctx) != HUM_OK ||
        cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
        hum_layer_workspace_size(s->layer[1], M_MAX, &bytes) != HUM_OK ||
        hum_workspace_create(s->rt, NULL, bytes, &ws) != HUM_OK ||
        hum_device_alloc(0, (size_t)M_MAX * N * 2, &d_c) != HUM_OK) {
        fail(w, hum_last_error());
        atomic_store(&s->stop, 1);
    }
    while (!atomic_load(&s->stop)) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const int64_t m = 1 + (int64_t)(x % M_MAX);
        const int l = (int)(x >> 40) & 1;
        const hum_tensor ta = gemm_test_matrix(s->d_a, HUM_DTYPE_FLOAT16, m, K, 0),
                         tc = gemm_test_matrix(d_c, HUM_DTYPE_FLOAT16, m, N, 0);
        if (cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)d_c, 0xFF, (size_t)(m * N) * 2, stream) != CUDA_SUCCESS) {
            fail(w, "poisoning C");
            continue;
        }
        const int during = atomic_load(&s->reloading);
        const double t0 = gemm_test_now_us();
        const hum_status st = hum_layer_forward_ws(s->layer[l], ws, stream, &ta, NULL, &tc);
        const double us = gemm_test_now_us() - t0;
        if (us > w->longest_us)
            w->longest_us = us;
        if ((during || atomic_load(&s->reloading)) && us > w->longest_in_reload_us)
            w->longest_in_reload_us = us;
        w->forwards++;
        atomic_fetch_add(&s->forwards, 1);
        if (st != HUM_OK || cu->cuStreamSynchronize(stream) != CUDA_SUCCESS ||
            hum_memcpy_dtoh(c, d_c, (size_t)(m * N) * 2) != HUM_OK) {
            fail(w, hum_last_error());
            continue;
        }
        hum_dtype_decode(HUM_DTYPE_FLOAT16, c, m * N, got);
        int finite = 1;
        for (int64_t i = 0; finite && i < m * N; i++)
            finite = isfinite(got[i]);
        const double err = finite ? quant_rel_error(got, s->ref[l], m * N) : INFINITY;
        if (!(err < 1e-2)) {
            char why[128];
            snprintf(why, sizeof why, "layer %d M = %lld: relative error %.3e", l, (long long)m, err);
            fail(w, why);
        }
    }
    hum_device_free(d_c);
    hum_workspace_destroy(ws);
    if (stream)
        cu->cuStreamDestroy(stream);
    free(c);
    free(got);
    return NULL;
}

/* Waits until the workers have completed `more` forwards (or stopped). */
static void let_run(shared *s, long more)
{
    const long target = atomic_load(&s->forwards) + more;
    while (atomic_load(&s->forwards) < target && !atomic_load(&s->stop))
        sched_yield();
}

static int same_tables(const hum_layer_info *a, const hum_layer_info *b)
{
    return a->generation == b->generation && a->entry_count == b->entry_count &&
           !memcmp(a->entries, b->entries, sizeof a->entries) && !strcmp(a->policy_name, b->policy_name);
}

static void reloads(shared *s, const char *dir)
{
    char text[4096];
    int alt = 0, ok = 0, refused = 0, alternations = 0;
    double total_ms = 0, longest_ms = 0;
    for (int r = 0; r < RELOADS; r++) {
        hum_layer_info before[LAYERS], after[LAYERS];
        for (int l = 0; l < LAYERS; l++)
            hum_layer_get_info(s->layer[l], &before[l]);
        const int broken = r % 10 == 9;
        if (broken)
            rt_write(dir, "stress.lua", BROKEN[(r / 10) % 2]);
        else {
            policy_text(alt ^ 1, text, sizeof text);
            rt_write(dir, "stress.lua", text);
        }
        atomic_store(&s->reloading, 1);
        const double t0 = gemm_test_now_us();
        const hum_status st = hum_runtime_reload_policies(s->rt);
        const double ms = (gemm_test_now_us() - t0) / 1e3;
        atomic_store(&s->reloading, 0);
        total_ms += ms;
        longest_ms = ms > longest_ms ? ms : longest_ms;
        for (int l = 0; l < LAYERS; l++)
            hum_layer_get_info(s->layer[l], &after[l]);
        if (broken) {
            refused += st != HUM_OK;
            QUANT_CHECK(st != HUM_OK, "reload %d (broken on purpose) succeeded", r);
            for (int l = 0; l < LAYERS; l++)
                QUANT_CHECK(same_tables(&before[l], &after[l]), "failed reload %d changed layer %d's table", r, l);
            if (r < 20)
                printf("  reload %d refused as it should: %s\n", r, hum_last_error());
        } else if (QUANT_CHECK(st == HUM_OK, "reload %d: %s", r, hum_last_error())) {
            ok++;
            alt ^= 1;
            for (int l = 0; l < LAYERS; l++) {
                const int bm0 = after[l].entries[0].block_m;
                const int moved = after[l].generation == before[l].generation + 1 &&
                                  !strcmp(after[l].policy_name, alt ? "stress-b" : "stress-a") &&
                                  bm0 == (alt ? 32 : 16) && strcmp(before[l].policy_name, after[l].policy_name);
                alternations += moved;
                QUANT_CHECK(moved, "reload %d: layer %d has policy %s, generation %llu, block_m %d", r, l,
                            after[l].policy_name, (unsigned long long)after[l].generation, bm0);
            }
        }
        let_run(s, 64);
    }
    printf("  %d reloads: %d applied, %d refused; tables alternated %d times over %d layers; reload %.1f ms mean, "
           "%.1f ms longest\n",
           RELOADS, ok, refused, alternations, LAYERS, total_ms / RELOADS, longest_ms);
    QUANT_CHECK(ok == 45 && refused == 5 && alternations == 45 * LAYERS, "45 applied, 5 refused, 90 alternations");
}

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("test_reload_stress");
    static shared s;
    char dir[512], text[4096];
    rt_tmpdir("reload-stress", dir, sizeof dir);
    policy_text(0, text, sizeof text);
    rt_write(dir, "stress.lua", text);
    const char *config = rt_write(dir, "hum.yaml", "policy_paths: [stress.lua]\n");
    hum_runtime_options opts;
    hum_runtime_options_init(&opts);
    opts.config_path = config;
    hum_standard_weight w[LAYERS];
    memset(w, 0, sizeof w);
    uint16_t *a_codes = malloc((size_t)M_MAX * K * 2);
    double *a = malloc((size_t)M_MAX * K * sizeof *a);
    const int64_t modules_at_start = hum_kernel_loaded_count();
    int64_t modules_prepared = -1;
    if (!QUANT_CHECK(a_codes && a && hum_runtime_create(&opts, &s.rt) == HUM_OK, "%s", hum_last_error()))
        goto done;
    quant_fill_activations(&rng, HUM_DTYPE_FLOAT16, (int64_t)M_MAX * K, 1.0, a_codes, a);
    for (int l = 0; l < LAYERS; l++) {
        hum_layer_spec spec;
        s.ref[l] = malloc((size_t)M_MAX * N * sizeof *s.ref[l]);
        if (!QUANT_CHECK(s.ref[l] && hum_layer_spec_parse(SPECS[l], &spec) == HUM_OK &&
                             hum_layer_spec_weight(&spec, quant_rng_next(&rng), &w[l]) == HUM_OK &&
                             hum_layer_from_standard(s.rt, &w[l], NULL, &s.layer[l]) == HUM_OK &&
                             hum_layer_prepare(s.layer[l]) == HUM_OK &&
                             hum_reference_gemm(&w[l], 0, a, M_MAX, s.ref[l]) == HUM_OK,
                         "%s: %s", SPECS[l], hum_last_error()))
            goto done;
    }
    if (!QUANT_CHECK(hum_device_alloc(0, (size_t)M_MAX * K * 2, &s.d_a) == HUM_OK &&
                         hum_memcpy_htod(s.d_a, a_codes, (size_t)M_MAX * K * 2) == HUM_OK,
                     "%s", hum_last_error()))
        goto done;
    modules_prepared = hum_kernel_loaded_count();

    worker wk[THREADS];
    pthread_t tid[THREADS];
    for (int i = 0; i < THREADS; i++) {
        wk[i] = (worker){.s = &s, .id = i};
        pthread_create(&tid[i], NULL, work, &wk[i]);
    }
    let_run(&s, 200);
    reloads(&s, dir);
    atomic_store(&s.stop, 1);
    long forwards = 0, failures = 0;
    double longest = 0, longest_in_reload = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        forwards += wk[i].forwards;
        failures += wk[i].failures;
        longest = wk[i].longest_us > longest ? wk[i].longest_us : longest;
        longest_in_reload = wk[i].longest_in_reload_us > longest_in_reload ? wk[i].longest_in_reload_us
                                                                           : longest_in_reload;
        QUANT_CHECK(wk[i].failures == 0, "thread %d: %ld of %ld forwards failed, first: %s", i, wk[i].failures,
                    wk[i].forwards, wk[i].first_error);
    }
    printf("  %d threads: %ld forwards checked, %ld failed; longest forward call %.1f us, %.1f us while a reload "
           "ran\n",
           THREADS, forwards, failures, longest, longest_in_reload);
    QUANT_CHECK(hum_kernel_loaded_count() == modules_prepared, "%lld modules loaded after the reloads, %lld before",
                (long long)hum_kernel_loaded_count(), (long long)modules_prepared);
    /* a forward never waits on a reload: far below any NVRTC compile (hundreds of ms) */
    QUANT_CHECK(longest_in_reload < 50e3, "a forward took %.1f ms while a reload ran", longest_in_reload / 1e3);
done:
    for (int l = 0; l < LAYERS; l++) {
        hum_layer_destroy(s.layer[l]);
        hum_standard_free(&w[l]);
        free(s.ref[l]);
    }
    QUANT_CHECK(modules_prepared < 0 || hum_kernel_loaded_count() == modules_at_start,
                "%lld modules still loaded after the layers were destroyed (%lld at start)",
                (long long)hum_kernel_loaded_count(), (long long)modules_at_start);
    hum_device_free(s.d_a);
    hum_runtime_destroy(s.rt);
    free(a_codes);
    free(a);
    rt_rmtree(dir);
    return quant_test_result("test_reload_stress");
}
