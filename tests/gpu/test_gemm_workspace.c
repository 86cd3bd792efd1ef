/* Workspaces and act-order on the fast paths, on a GPU: hum_layer_workspace_size's figures; bad
 * workspaces refused with nothing launched; an act-order layer (A gathered by
 * kernels/prep/permute_a.cu, then the vectorised kernels, wgmma on sm_90) against the float64
 * reference in one pass, in row chunks (a workspace of fewer rows than M) and in a host-owned
 * workspace; one act-order layer shared by 4 threads, each with its own stream and workspace,
 * every output checked and bit-identical to the single-threaded one; a forward captured in a
 * CUDA graph and replayed; and the host overhead of a forward (M = 1 against the bare launch it
 * makes, and M = 64 on the wgmma kernel with its tensor map cached or re-encoded each call); stream-K
 * slices summed in the workspace (stream_k_sum; a bfloat16 layer at M = 1, 5, 100, each tile
 * split over many CTAs, within the float32 reordering bound and one output rounding of the same
 * layer run with whole tiles). Skipped (77) without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include "cuda_driver.h"
#include "device.h"
#include "gemm_test.h"
#include "graph_test.h"
#include "hum/hum.h"
#include "layer.h"
#include "rt_test.h"
#include "workspace.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* K above 4096: sm90.lua then sums the act-order layer's stream-K slices in the workspace at M 65..384
 * too, beside the permuted rows (a narrow layer with a shorter K takes other tiles there). */
enum { N = 1024, K = 4608, THREADS = 4, M_MAX = 300 };
static const int64_t THREAD_MS[THREADS] = {1, 37, 128, 300};

/* Shared by the checks: the layer, its weight, M_MAX rows of A (host codes, float64 values,
 * device) and the reference C of every row. */
typedef struct fixture {
    hum_runtime *rt;
    hum_layer *layer;
    hum_standard_weight w;
    uint16_t *a_codes;
    double *a, *ref;
    void *d_a;
} fixture;

/* C = layer(A[0..m)) through `ws` on `stream`, poisoned first; the relative error against the
 * reference, or -1 (recorded) when the forward fails or leaves an element not finite. The
 * output codes go to `codes` when not NULL. */
static double run(const fixture *f, hum_workspace *ws, CUstream stream, int64_t m, uint16_t *codes)
{
    double err = -1;
    void *d_c = NULL;
    uint16_t *c = malloc((size_t)(m * N) * 2);
    double *got = malloc((size_t)(m * N) * sizeof *got);
    const hum_tensor ta = gemm_test_matrix(f->d_a, HUM_DTYPE_FLOAT16, m, K, 0);
    hum_tensor tc;
    if (!QUANT_CHECK(c && got && hum_device_alloc(0, (size_t)(m * N) * 2, &d_c) == HUM_OK &&
                         hum_memset_d8(d_c, 0xFF, (size_t)(m * N) * 2) == HUM_OK &&
                         hum_stream_synchronize(NULL) == HUM_OK,
                     "M = %lld buffers: %s", (long long)m, hum_last_error()))
        goto done;
    tc = gemm_test_matrix(d_c, HUM_DTYPE_FLOAT16, m, N, 0);
    if (!QUANT_CHECK(hum_layer_forward_ws(f->layer, ws, stream, &ta, NULL, &tc) == HUM_OK &&
                         hum_stream_synchronize(stream) == HUM_OK &&
                         hum_memcpy_dtoh(c, d_c, (size_t)(m * N) * 2) == HUM_OK,
                     "forward M = %lld: %s", (long long)m, hum_last_error()))
        goto done;
    hum_dtype_decode(HUM_DTYPE_FLOAT16, c, m * N, got);
    for (int64_t i = 0; i < m * N; i++)
        if (!QUANT_CHECK(isfinite(got[i]), "M = %lld: output %lld not finite", (long long)m, (long long)i))
            goto done;
    err = quant_rel_error(got, f->ref, m * N);
    if (!QUANT_CHECK(err < 1e-2, "M = %lld: relative error %.3e", (long long)m, err))
        err = -1;
    if (codes)
        memcpy(codes, c, (size_t)(m * N) * 2);
done:
    hum_device_free(d_c);
    free(c);
    free(got);
    return err;
}

/* The stream-K partial tiles of a layer's table on `dev`: the most over its entries whose slices
 * sum in the workspace of a float32 tile per CTA of the largest grid. */
static int64_t partial_bytes(const hum_layer *layer, const hum_device_info *dev)
{
    hum_layer_info info;
    hum_layer_get_info(layer, &info);
    int64_t most = 0;
    for (int i = 0; i < info.entry_count; i++) {
        const hum_tuning *t = &info.entries[i];
        const int64_t b =
            t->stream_k && t->stream_k_sum ? (int64_t)dev->sm_count * t->ctas_per_sm * t->block_m * t->block_n * 4 : 0;
        most = b > most ? b : most;
    }
    return (most + 255) / 256 * 256;
}

static void check_sizes_and_refusals(const fixture *f)
{
    hum_device_info dev;
    hum_runtime_device(f->rt, &dev);
    /* the stream-K locks, then the counters of the GEMMs that quantize their own A (hum.h) */
    const int64_t locks = ((int64_t)dev.sm_count * 32 * 4 + 255) / 256 * 256 + 4096;
    /* the partial tiles of the built-in table (sm90.lua sums the stream-K slices of M <= 16 in the
     * workspace; none on targets whose policy leaves stream_k_sum out), then the rows of A the
     * forward gathers */
    const int64_t partials = partial_bytes(f->layer, &dev);
    int64_t size0 = -1, size3 = -1;
    QUANT_CHECK(hum_layer_workspace_size(f->layer, 0, &size0) == HUM_OK && size0 == locks + partials,
                "size at M 0: %lld, want %lld", (long long)size0, (long long)(locks + partials));
    QUANT_CHECK(hum_layer_workspace_size(f->layer, 3, &size3) == HUM_OK &&
                    size3 == locks + partials + (3 * K * 2 + 255) / 256 * 256,
                "size at M 3: %lld, want %lld", (long long)size3,
                (long long)(locks + partials + (3 * K * 2 + 255) / 256 * 256));
    int64_t bytes = -1;
    QUANT_CHECK(hum_layer_workspace_size(f->layer, -1, &bytes) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "max_m"),
                "max_m -1: %s", hum_last_error());
    hum_workspace *ws = NULL;
    QUANT_CHECK(hum_workspace_create(f->rt, NULL, locks - 4, &ws) == HUM_ERR_INVALID_ARG && !ws &&
                    strstr(hum_last_error(), "at least"),
                "too small: %s", hum_last_error());
    void *mem = NULL;
    hum_device_alloc(0, (size_t)locks + 512, &mem);
    QUANT_CHECK(hum_workspace_create(f->rt, (char *)mem + 16, locks, &ws) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "aligned"),
                "misaligned: %s", hum_last_error());
    /* the locks alone: an act-order forward has nowhere to gather A; nothing is launched */
    if (QUANT_CHECK(hum_workspace_create(f->rt, mem, locks, &ws) == HUM_OK, "%s", hum_last_error())) {
        void *d_c = NULL;
        hum_device_alloc(0, N * 2, &d_c);
        hum_memset_d8(d_c, 0xFF, N * 2);
        const hum_tensor ta = gemm_test_matrix(f->d_a, HUM_DTYPE_FLOAT16, 1, K, 0),
                         tc = gemm_test_matrix(d_c, HUM_DTYPE_FLOAT16, 1, N, 0);
        QUANT_CHECK(hum_layer_forward_ws(f->layer, ws, NULL, &ta, NULL, &tc) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), "holds no row"),
                    "no room for A: %s", hum_last_error());
        QUANT_CHECK(hum_layer_forward_ws(f->layer, NULL, NULL, &ta, NULL, &tc) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), "workspace"),
                    "NULL workspace: %s", hum_last_error());
        uint16_t c[N];
        hum_stream_synchronize(NULL);
        hum_memcpy_dtoh(c, d_c, N * 2);
        int touched = 0;
        for (int i = 0; i < N; i++)
            touched += c[i] != 0xFFFF;
        QUANT_CHECK(touched == 0, "%d outputs written by refused forwards", touched);
        hum_device_free(d_c);
        hum_workspace_destroy(ws);
    }
    hum_device_free(mem);
}

/* One bfloat16 forward of the M rows at d_a through ws into codes (C poisoned first). */
static int forward_bf16(hum_layer *layer, hum_workspace *ws, void *d_a, int64_t m, int64_t k, int64_t n,
                        uint16_t *codes)
{
    void *d_c = NULL;
    const hum_tensor ta = gemm_test_matrix(d_a, HUM_DTYPE_BFLOAT16, m, k, 0);
    const hum_tensor tc = gemm_test_matrix(NULL, HUM_DTYPE_BFLOAT16, m, n, 0);
    int ok = hum_device_alloc(0, (size_t)(m * n) * 2, &d_c) == HUM_OK &&
             hum_memset_d8(d_c, 0xFF, (size_t)(m * n) * 2) == HUM_OK;
    hum_tensor out = tc;
    out.data = d_c;
    ok = ok && hum_layer_forward_ws(layer, ws, NULL, &ta, NULL, &out) == HUM_OK &&
         hum_stream_synchronize(NULL) == HUM_OK && hum_memcpy_dtoh(codes, d_c, (size_t)(m * n) * 2) == HUM_OK;
    hum_device_free(d_c);
    return QUANT_CHECK(ok, "bfloat16 forward M = %lld: %s", (long long)m, hum_last_error());
}

/* Stream-K slices summed in the workspace (stream_k_sum = "workspace", a runtime whose policy
 * sets it on the built-in tables): a bfloat16 layer whose tiles are split over ~16 CTAs each
 * (K = 8192; M = 1 and 5 on mma.sync, 100 on wgmma on sm_90) gives, through a workspace sized
 * by hum_layer_workspace_size, what a workspace of the locks alone gives (every tile whole in
 * one CTA) within what summing the same float32 products in another order and one output
 * rounding allow (gemm_test_reordered_apart: more than one ulp apart only near cancellation), and
 * no larger error against the float64 reference. The same layer under the built-in table is
 * printed beside it ("built-in"): on sm_90 its M <= 16 entry sums in the workspace too, its wgmma
 * entries through C (one rounding per slice). */
static void check_stream_k(hum_runtime *rt, quant_rng *rng)
{
    enum { SK_N = 1024, SK_K = 8192, SK_M = 100 };
    static const int64_t ms[] = {1, 5, SK_M};
    char dir[512];
    hum_runtime *sk_rt = gemm_test_workspace_sum_runtime("wgmma", dir, sizeof dir);
    hum_layer_spec s;
    hum_standard_weight w;
    hum_layer *layer = NULL, *through_c = NULL;
    hum_workspace *full = NULL, *bare = NULL, *plain = NULL;
    uint16_t *a_codes = malloc((size_t)(SK_M * SK_K) * 2), *c_sk = malloc(SK_M * SK_N * 2),
             *c_dp = malloc(SK_M * SK_N * 2), *c_out = malloc(SK_M * SK_N * 2);
    double *a = malloc((size_t)(SK_M * SK_K) * sizeof *a), *ref = malloc(SK_M * SK_N * sizeof *ref);
    double *got = malloc(SK_M * SK_N * sizeof *got), *abs_sum = malloc(SK_M * SK_N * sizeof *abs_sum);
    void *d_a = NULL;
    int64_t bytes = 0, plain_bytes = 0;
    memset(&w, 0, sizeof w);
    hum_device_info dev;
    if (!QUANT_CHECK(sk_rt && a_codes && c_sk && c_dp && c_out && a && ref && got && abs_sum &&
                         hum_runtime_device(rt, &dev) == HUM_OK &&
                         hum_layer_spec_parse("n=1024,k=8192,w=uint4,a=bfloat16,group=128", &s) == HUM_OK &&
                         hum_layer_spec_weight(&s, quant_rng_next(rng), &w) == HUM_OK &&
                         hum_layer_from_standard(sk_rt, &w, NULL, &layer) == HUM_OK &&
                         hum_layer_prepare(layer) == HUM_OK &&
                         hum_layer_from_standard(rt, &w, NULL, &through_c) == HUM_OK &&
                         hum_layer_prepare(through_c) == HUM_OK &&
                         hum_layer_workspace_size(layer, SK_M, &bytes) == HUM_OK &&
                         hum_layer_workspace_size(through_c, SK_M, &plain_bytes) == HUM_OK &&
                         hum_workspace_create(sk_rt, NULL, bytes, &full) == HUM_OK &&
                         hum_workspace_create(sk_rt, NULL, plain_bytes - partial_bytes(through_c, &dev), &bare) ==
                             HUM_OK &&
                         hum_workspace_create(rt, NULL, plain_bytes, &plain) == HUM_OK &&
                         quant_fill_activations(rng, HUM_DTYPE_BFLOAT16, SK_M * SK_K, 1.0, a_codes, a) == 0 &&
                         hum_reference_gemm(&w, 0, a, SK_M, ref) == HUM_OK &&
                         hum_device_alloc(0, (size_t)(SK_M * SK_K) * 2, &d_a) == HUM_OK &&
                         hum_memcpy_htod(d_a, a_codes, (size_t)(SK_M * SK_K) * 2) == HUM_OK,
                     "stream-K layer: %s", hum_last_error()) ||
        gemm_test_abs_products(&w, a, SK_M, abs_sum) != 0)
        goto done;
    /* each size is the locks (and no rows of A: 16-bit, no act-order) and its table's partial
     * tiles; "bare" holds the locks alone, so the workspace-sum layer runs every tile whole in it */
    QUANT_CHECK(partial_bytes(layer, &dev) > 0 &&
                    bytes - partial_bytes(layer, &dev) == plain_bytes - partial_bytes(through_c, &dev),
                "stream-K workspace sizes: %lld with partial tiles, %lld for the built-in table", (long long)bytes,
                (long long)plain_bytes);
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        const int64_t m = ms[i], count = m * SK_N;
        if (!forward_bf16(layer, full, d_a, m, SK_K, SK_N, c_sk) ||
            !forward_bf16(layer, bare, d_a, m, SK_K, SK_N, c_dp) ||
            !forward_bf16(through_c, plain, d_a, m, SK_K, SK_N, c_out))
            break;
        const int64_t apart = gemm_test_reordered_apart(HUM_DTYPE_BFLOAT16, c_sk, c_dp, abs_sum, SK_K, count),
                      ulps = gemm_test_reordered_apart(HUM_DTYPE_BFLOAT16, c_sk, c_dp, abs_sum, 0, count),
                      ulps_c = gemm_test_reordered_apart(HUM_DTYPE_BFLOAT16, c_out, c_dp, abs_sum, 0, count);
        hum_dtype_decode(HUM_DTYPE_BFLOAT16, c_sk, count, got);
        const double e_sk = quant_rel_error(got, ref, count);
        hum_dtype_decode(HUM_DTYPE_BFLOAT16, c_dp, count, got);
        const double e_dp = quant_rel_error(got, ref, count);
        hum_dtype_decode(HUM_DTYPE_BFLOAT16, c_out, count, got);
        const double e_c = quant_rel_error(got, ref, count);
        printf("  stream-K M = %lld bfloat16, outputs more than one ulp from whole tiles: slices summed in the "
               "workspace %lld (%lld beyond the float32 reordering bound), built-in %lld of %lld; relative error "
               "%.3e, %.3e, whole tiles %.3e\n",
               (long long)m, (long long)ulps, (long long)apart, (long long)ulps_c, (long long)count, e_sk, e_c, e_dp);
        QUANT_CHECK(apart == 0 && e_sk <= 1.1 * e_dp + 1e-6, "stream-K summed in the workspace, M = %lld: %lld outputs "
                    "apart, error %.3e against %.3e", (long long)m, (long long)apart, e_sk, e_dp);
    }
done:
    hum_device_free(d_a);
    hum_workspace_destroy(full);
    hum_workspace_destroy(bare);
    hum_workspace_destroy(plain);
    hum_layer_destroy(layer);
    hum_layer_destroy(through_c);
    hum_standard_free(&w);
    hum_runtime_destroy(sk_rt);
    if (sk_rt)
        rt_rmtree(dir);
    free(a_codes);
    free(c_sk);
    free(c_dp);
    free(c_out);
    free(a);
    free(ref);
    free(got);
    free(abs_sum);
}

typedef struct worker {
    const fixture *f;
    int64_t m;
    const uint16_t *expect; /* the single-threaded output at m */
    int failures;
} worker;

static void *work(void *arg)
{
    worker *wk = arg;
    const hum_cuda_api *cu = hum_cuda();
    CUstream stream = NULL;
    hum_workspace *ws = NULL;
    int64_t bytes = 0;
    uint16_t *codes = malloc((size_t)(wk->m * N) * 2);
    CUcontext ctx;
    if (hum_device_activate(0, &ctx) != HUM_OK || hum_layer_workspace_size(wk->f->layer, wk->m, &bytes) != HUM_OK ||
        hum_workspace_create(wk->f->rt, NULL, bytes, &ws) != HUM_OK ||
        cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS || !codes) {
        wk->failures = 1000;
    } else {
        for (int rep = 0; rep < 20; rep++)
            if (run(wk->f, ws, stream, wk->m, codes) < 0 || memcmp(codes, wk->expect, (size_t)(wk->m * N) * 2))
                wk->failures++;
    }
    if (stream)
        cu->cuStreamDestroy(stream);
    hum_workspace_destroy(ws);
    free(codes);
    return NULL;
}

static void check_threads(const fixture *f)
{
    worker wk[THREADS];
    pthread_t tid[THREADS];
    hum_workspace *ws = NULL;
    int64_t bytes = 0;
    if (!QUANT_CHECK(hum_layer_workspace_size(f->layer, M_MAX, &bytes) == HUM_OK &&
                         hum_workspace_create(f->rt, NULL, bytes, &ws) == HUM_OK,
                     "%s", hum_last_error()))
        return;
    for (int i = 0; i < THREADS; i++) {
        uint16_t *expect = malloc((size_t)(THREAD_MS[i] * N) * 2);
        wk[i] = (worker){f, THREAD_MS[i], expect, 0};
        run(f, ws, NULL, THREAD_MS[i], expect);
    }
    hum_workspace_destroy(ws);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&tid[i], NULL, work, &wk[i]);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        QUANT_CHECK(wk[i].failures == 0, "thread %d (M = %lld): %d of 20 forwards wrong or not bit-identical", i,
                    (long long)wk[i].m, wk[i].failures);
        free((void *)wk[i].expect);
    }
    printf("  %d threads, own streams and workspaces, 20 forwards each: ok\n", THREADS);
}

/* The forward check_graph captures. */
typedef struct {
    const fixture *f;
    hum_workspace *ws;
    hum_tensor a, c;
} graph_forward;

static hum_status record_forward(void *ctx, CUstream stream)
{
    const graph_forward *g = ctx;
    return hum_layer_forward_ws(g->f->layer, g->ws, stream, &g->a, NULL, &g->c);
}

static void check_graph(const fixture *f)
{
    const hum_cuda_api *cu = hum_cuda();
    const int64_t m = 128;
    int64_t bytes = 0;
    hum_workspace *ws = NULL;
    CUstream stream = NULL;
    CUgraphExec exec = NULL;
    void *d_c = NULL;
    uint16_t *c = malloc((size_t)(m * N) * 2);
    double *got = malloc((size_t)(m * N) * sizeof *got);
    if (!QUANT_CHECK(hum_layer_workspace_size(f->layer, m, &bytes) == HUM_OK &&
                         hum_workspace_create(f->rt, NULL, bytes, &ws) == HUM_OK &&
                         hum_device_alloc(0, (size_t)(m * N) * 2, &d_c) == HUM_OK &&
                         cu && hum_cuda_result(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                                               "cuStreamCreate") == HUM_OK,
                     "graph setup: %s", hum_last_error()))
        goto done;
    graph_forward g = {f, ws, gemm_test_matrix(f->d_a, HUM_DTYPE_FLOAT16, m, K, 0),
                       gemm_test_matrix(d_c, HUM_DTYPE_FLOAT16, m, N, 0)};
    QUANT_CHECK(graph_test_capture(stream, record_forward, &g, &exec, NULL) == HUM_OK, "capture: %s",
                hum_last_error());
    for (int rep = 0; exec && rep < 3; rep++) {
        hum_memset_d8(d_c, 0xFF, (size_t)(m * N) * 2);
        hum_stream_synchronize(NULL);
        if (!QUANT_CHECK(hum_cuda_result(cu->cuGraphLaunch(exec, stream), "cuGraphLaunch") == HUM_OK &&
                             hum_cuda_result(cu->cuStreamSynchronize(stream), "cuStreamSynchronize") == HUM_OK &&
                             hum_memcpy_dtoh(c, d_c, (size_t)(m * N) * 2) == HUM_OK,
                         "graph replay %d: %s", rep, hum_last_error()))
            break;
        hum_dtype_decode(HUM_DTYPE_FLOAT16, c, m * N, got);
        const double err = quant_rel_error(got, f->ref, m * N);
        QUANT_CHECK(err < 1e-2, "graph replay %d: relative error %.3e", rep, err);
    }
done:
    if (exec)
        cu->cuGraphExecDestroy(exec);
    if (stream)
        cu->cuStreamDestroy(stream);
    hum_workspace_destroy(ws);
    hum_device_free(d_c);
    free(c);
    free(got);
}

/* Host time of `calls` forwards queued back to back (few enough that the queue never fills). */
static double overhead(const fixture *f, hum_workspace *ws, const int64_t *ms, int count)
{
    void *d_c = NULL;
    hum_device_alloc(0, (size_t)(M_MAX * N) * 2, &d_c);
    hum_tensor ta[2], tc[2];
    for (int i = 0; i < count; i++) {
        ta[i] = gemm_test_matrix(f->d_a, HUM_DTYPE_FLOAT16, ms[i], K, 0);
        tc[i] = gemm_test_matrix(d_c, HUM_DTYPE_FLOAT16, ms[i], N, 0);
    }
    for (int i = 0; i < 50; i++)
        hum_layer_forward_ws(f->layer, ws, NULL, &ta[i % count], NULL, &tc[i % count]);
    hum_stream_synchronize(NULL);
    const int calls = 200;
    const double t0 = gemm_test_now_us();
    for (int i = 0; i < calls; i++)
        hum_layer_forward_ws(f->layer, ws, NULL, &ta[i % count], NULL, &tc[i % count]);
    const double per_call = (gemm_test_now_us() - t0) / calls;
    hum_stream_synchronize(NULL);
    hum_device_free(d_c);
    return per_call;
}

/* The launch a forward of M = 1 makes, straight through hum_kernel_launch, timed as overhead()
 * times forwards: the driver's share of a forward's host time. */
static double bare_launch(const fixture *f, hum_workspace *ws)
{
    const hum_dispatch_table *t = atomic_load(&f->layer->table);
    const hum_dispatch_entry *e = &t->entries[0];
    const hum_layer_buffers *b = &f->layer->buf;
    /* a plain launch: no cluster dims, no A map bound (entry 0 is mma.sync in the built-in tables) */
    if (!QUANT_CHECK(e->cluster_n == 1 && !e->family->bind, "entry 0 of the table launches in clusters or binds A"))
        return 0;
    void *d_c = NULL;
    hum_device_alloc(0, N * 2, &d_c);
    /* the partial tiles where the entry sums its slices in the workspace, as the forward passes them */
    void *partials = NULL;
    char *rows = NULL;
    int64_t room = 0;
    hum_workspace_areas(ws, t->partial_bytes, 0, &partials, &rows, &room);
    hum_gemm_args args = {.a = f->d_a, .lda = K, .b = b->weight, .b_scale = b->scale, .zero = b->zero,
                          .bias = b->bias, .c = d_c, .ldc = N, .locks = ws->base, .m = 1,
                          .out_factor = f->layer->out_factor, .partials = e->stream_k_sum ? partials : NULL};
    const int64_t work =
        e->stream_k && (!e->stream_k_sum || args.partials) ? e->n_blocks * e->k_blocks : e->n_blocks;
    const hum_launch_config launch = {.grid = {(uint32_t)(work < e->max_grid ? work : e->max_grid), 1, 1},
                                      .block = {e->threads, 1, 1}, .dynamic_smem_bytes = e->smem_bytes};
    void *params[] = {&args};
    for (int i = 0; i < 50; i++)
        hum_kernel_launch(e->kernel, &launch, params);
    hum_stream_synchronize(NULL);
    const int calls = 200;
    const double t0 = gemm_test_now_us();
    for (int i = 0; i < calls; i++)
        hum_kernel_launch(e->kernel, &launch, params);
    const double per_call = (gemm_test_now_us() - t0) / calls;
    hum_stream_synchronize(NULL);
    hum_device_free(d_c);
    return per_call;
}

static void check_overhead(const fixture *f, const fixture *plain)
{
    hum_workspace *ws = NULL;
    int64_t bytes = 0;
    if (!QUANT_CHECK(hum_layer_workspace_size(f->layer, M_MAX, &bytes) == HUM_OK &&
                         hum_workspace_create(f->rt, NULL, bytes, &ws) == HUM_OK,
                     "%s", hum_last_error()))
        return;
    static const int64_t one[1] = {1}, m64[1] = {64}, alternate[2] = {64, 65};
    const double p1 = overhead(plain, ws, one, 1), p64 = overhead(plain, ws, m64, 1),
                 palt = overhead(plain, ws, alternate, 2), a1 = overhead(f, ws, one, 1);
    const double bare = bare_launch(plain, ws);
    printf("  forward host overhead, us per call: M = 1 %.2f (the bare launch %.2f: hum's own part %.2f); M = 64 "
           "%.2f; M = 64/65 alternating (tensor map re-encoded on sm_90) %.2f; act-order M = 1 (2 launches) %.2f\n",
           p1, bare, p1 - bare, p64, palt, a1);
    QUANT_CHECK(p1 < 50 && p64 < 50 && palt < 50 && a1 < 100, "host overhead");
    hum_workspace_destroy(ws);
}

static int setup(fixture *f, hum_runtime *rt, quant_rng *rng, const char *spec)
{
    memset(f, 0, sizeof *f);
    f->rt = rt;
    hum_layer_spec s;
    if (!QUANT_CHECK(hum_layer_spec_parse(spec, &s) == HUM_OK &&
                         hum_layer_spec_weight(&s, quant_rng_next(rng), &f->w) == HUM_OK &&
                         hum_layer_from_standard(rt, &f->w, NULL, &f->layer) == HUM_OK &&
                         hum_layer_prepare(f->layer) == HUM_OK,
                     "%s: %s", spec, hum_last_error()))
        return 0;
    f->a_codes = malloc((size_t)(M_MAX * K) * 2);
    f->a = malloc((size_t)(M_MAX * K) * sizeof *f->a);
    f->ref = malloc((size_t)(M_MAX * N) * sizeof *f->ref);
    return QUANT_CHECK(f->a_codes && f->a && f->ref &&
                           quant_fill_activations(rng, HUM_DTYPE_FLOAT16, M_MAX * K, 1.0, f->a_codes, f->a) == 0 &&
                           hum_reference_gemm(&f->w, 0, f->a, M_MAX, f->ref) == HUM_OK &&
                           hum_device_alloc(0, (size_t)(M_MAX * K) * 2, &f->d_a) == HUM_OK &&
                           hum_memcpy_htod(f->d_a, f->a_codes, (size_t)(M_MAX * K) * 2) == HUM_OK,
                       "%s: inputs: %s", spec, hum_last_error());
}

static void teardown(fixture *f)
{
    hum_layer_destroy(f->layer);
    hum_standard_free(&f->w);
    hum_device_free(f->d_a);
    free(f->a_codes);
    free(f->a);
    free(f->ref);
}

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("test_gemm_workspace");
    hum_runtime *rt = NULL;
    fixture f, plain;
    memset(&f, 0, sizeof f);
    memset(&plain, 0, sizeof plain);
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()))
        return quant_test_result("test_gemm_workspace");
    if (setup(&f, rt, &rng, "n=1024,k=4608,w=uint4,a=float16,group=128,actorder=1") &&
        setup(&plain, rt, &rng, "n=1024,k=4608,w=uint4,a=float16,group=128")) {
        hum_layer_info info;
        hum_layer_get_info(f.layer, &info);
        printf("  act-order layer: %d ranges, policy %s, last range on %s\n", info.entry_count, info.policy_name,
               info.entries[info.entry_count - 1].kernel == HUM_GEMM_KERNEL_WGMMA      ? "wgmma"
               : info.entries[info.entry_count - 1].kernel == HUM_GEMM_KERNEL_WGMMA_WS ? "wgmma_ws"
                                                                                       : "mma.sync");
        check_sizes_and_refusals(&f);
        /* one pass, then chunks of 100 rows (M = 300: three), then a host-owned workspace */
        int64_t bytes = 0;
        hum_workspace *ws = NULL;
        static const int64_t ms[] = {1, 16, 64, 65, 129, 300};
        if (QUANT_CHECK(hum_layer_workspace_size(f.layer, M_MAX, &bytes) == HUM_OK &&
                            hum_workspace_create(rt, NULL, bytes, &ws) == HUM_OK,
                        "%s", hum_last_error())) {
            for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
                run(&f, ws, NULL, ms[i], NULL);
            hum_workspace_destroy(ws);
        }
        void *mem = NULL;
        if (QUANT_CHECK(hum_layer_workspace_size(f.layer, 100, &bytes) == HUM_OK &&
                            hum_device_alloc(0, (size_t)bytes, &mem) == HUM_OK &&
                            hum_workspace_create(rt, mem, bytes, &ws) == HUM_OK,
                        "%s", hum_last_error())) {
            run(&f, ws, NULL, 300, NULL);
            run(&f, ws, NULL, 100, NULL);
            hum_workspace_destroy(ws);
        }
        hum_device_free(mem);
        printf("  act-order forwards (one pass, 100-row chunks, host memory): checked\n");
        check_threads(&f);
        check_graph(&f);
        check_stream_k(rt, &rng);
        check_overhead(&f, &plain);
    }
    teardown(&f);
    teardown(&plain);
    hum_runtime_destroy(rt);
    return quant_test_result("test_gemm_workspace");
}
