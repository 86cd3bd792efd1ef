/* On a GPU: the self-check kernel runs and verifies; then the launch primitives one by one with a
 * probe kernel whose every output the host predicts: 3-D grids and blocks, dynamic shared memory
 * above the 48 KiB default (opted in at load), a stream, thread-block clusters and 2-D TMA
 * loads (sm_90+), and the errors for launches outside what was loaded. Skipped (77) without a GPU. */
#define _GNU_SOURCE
#include "jit_support.h"
#include "jit.h"
#include "selfcheck.h"
#include "tma.h"
#include "launch.h"
#include "device.h"

#include <string.h>
#include <time.h>

static const char probe_source[] =
    "#include \"hum_constants.h\"\n"
    "// out[block * threads + t] = the word (smem_words - 1 - t) of dynamic shared memory, which\n"
    "// thread (smem_words - 1 - t) % threads of this block wrote; ranks[block] = rank in cluster.\n"
    "extern \"C\" __global__ void launch_probe(unsigned int *out, unsigned int *ranks, unsigned int smem_words)\n"
    "{\n"
    "    extern __shared__ unsigned int words[];\n"
    "    const unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);\n"
    "    const unsigned int threads = blockDim.x * blockDim.y * blockDim.z;\n"
    "    const unsigned int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
    "    for (unsigned int w = t; w < smem_words; w += threads)\n"
    "        words[w] = (w * 2654435761u) ^ (block << 20) ^ kProbeSalt;\n"
    "    __syncthreads();\n"
    "    out[block * threads + t] = words[smem_words - 1 - t];\n"
    "    unsigned int rank = 0;\n"
    "#if __CUDA_ARCH__ >= 900\n"
    "    asm volatile(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(rank));\n"
    "#endif\n"
    "    if (t == 0)\n"
    "        ranks[block] = rank;\n"
    "}\n";

/* One TMA load of a kBoxRows x kBoxCols float box at (x0, y0) into shared memory, then the raw
 * shared-memory bytes out, so that the host sees both the clipping and the swizzle. */
static const char tma_source[] =
    "#include \"hum_constants.h\"\n"
    "struct alignas(64) TensorMap { unsigned long long opaque[16]; };\n"
    "extern \"C\" __global__ void tma_probe(const __grid_constant__ TensorMap map, float *out, int x0, int y0)\n"
    "{\n"
    "    __shared__ alignas(1024) float tile[kBoxRows * kBoxCols];\n"
    "    __shared__ alignas(8) unsigned long long barrier;\n"
    "    const unsigned int bar = (unsigned int)__cvta_generic_to_shared(&barrier);\n"
    "    const unsigned int dst = (unsigned int)__cvta_generic_to_shared(tile);\n"
    "    if (threadIdx.x == 0) {\n"
    "        asm volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" :: \"r\"(bar));\n"
    "        asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n"
    "    }\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0) {\n"
    "        asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\"\n"
    "                     :: \"r\"(bar), \"r\"((unsigned int)sizeof tile) : \"memory\");\n"
    "        asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\"\n"
    "                     \" [%0], [%1, {%2, %3}], [%4];\"\n"
    "                     :: \"r\"(dst), \"l\"(&map), \"r\"(x0), \"r\"(y0), \"r\"(bar) : \"memory\");\n"
    "    }\n"
    "    unsigned int done = 0;\n"
    "    while (!done)\n"
    "        asm volatile(\"{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; "
    "}\"\n"
    "                     : \"=r\"(done) : \"r\"(bar) : \"memory\");\n"
    "    for (int i = threadIdx.x; i < kBoxRows * kBoxCols; i += blockDim.x)\n"
    "        out[i] = tile[i];\n"
    "}\n";

static uint32_t probe_word(uint32_t w, uint32_t block, uint32_t salt)
{
    return (w * 2654435761u) ^ (block << 20) ^ salt;
}

static void check_launches(const hum_device_info *d, const char *cache, const char *arch)
{
    uint32_t salt = (uint32_t)time(NULL) * 40503u;
    char constants[96];
    snprintf(constants, sizeof constants, "constexpr unsigned int kProbeSalt = 0x%08xu;\n", salt);
    hum_jit_request req = {.source = "kernels/launch_probe.cu", .constants = constants, .kernel_name = "launch_probe",
                           .arch = arch};
    hum_jit_result compiled;
    JT_OK(hum_jit_compile(cache, &req, &compiled));

    /* More dynamic shared memory than the 48 KiB a kernel gets without opting in. */
    int64_t smem_bytes = d->max_smem_per_block_optin >= 100 * 1024 ? 100 * 1024 : d->max_smem_per_block_optin;
    JT_CHECK(smem_bytes > 48 * 1024, "device %s allows only %lld bytes of shared memory per block", d->name,
             (long long)d->max_smem_per_block_optin);
    hum_kernel *k;
    JT_STATUS(hum_kernel_load(d->ordinal, &compiled, (int32_t)d->max_smem_per_block_optin + 1, &k),
              HUM_ERR_INVALID_ARG);
    JT_OK(hum_kernel_load(d->ordinal, &compiled, (int32_t)smem_bytes, &k));

    const uint32_t grid[3] = {4, 2, 3}, block[3] = {32, 4, 2};
    const uint32_t blocks = grid[0] * grid[1] * grid[2], threads = block[0] * block[1] * block[2];
    uint32_t smem_words = (uint32_t)(smem_bytes / 4);
    size_t out_bytes = (size_t)blocks * threads * 4, rank_bytes = blocks * 4;
    void *d_out, *d_ranks;
    JT_OK(hum_device_alloc(d->ordinal, out_bytes, &d_out));
    JT_OK(hum_device_alloc(d->ordinal, rank_bytes, &d_ranks));
    uint32_t *out = malloc(out_bytes), *ranks = malloc(rank_bytes);
    JT_CHECK(out && ranks, "out of memory");
    void *args[] = {&d_out, &d_ranks, &smem_words};

    int clusters = d->sm_major >= 9;
    for (int pass = 0; pass < 1 + clusters; pass++) {
        JT_OK(hum_memset_d8(d_out, 0xEE, out_bytes));
        JT_OK(hum_memset_d8(d_ranks, 0xEE, rank_bytes));
        hum_launch_config cfg = {.grid = {grid[0], grid[1], grid[2]},
                                 .block = {block[0], block[1], block[2]},
                                 .cluster = {pass ? 2 : 0, 0, 0},
                                 .dynamic_smem_bytes = (uint32_t)smem_bytes};
        JT_OK(hum_kernel_launch(k, &cfg, args));
        JT_OK(hum_stream_synchronize(NULL));
        JT_OK(hum_memcpy_dtoh(out, d_out, out_bytes));
        JT_OK(hum_memcpy_dtoh(ranks, d_ranks, rank_bytes));
        for (uint32_t b = 0; b < blocks; b++) {
            uint32_t want_rank = pass ? (b % grid[0]) % 2 : 0;
            JT_CHECK(ranks[b] == want_rank, "pass %d: block %u reports cluster rank %u, expected %u", pass, b, ranks[b],
                     want_rank);
            for (uint32_t t = 0; t < threads; t++) {
                uint32_t want = probe_word(smem_words - 1 - t, b, salt);
                JT_CHECK(out[b * threads + t] == want, "pass %d: block %u thread %u read 0x%08x, expected 0x%08x", pass,
                         b, t, out[b * threads + t], want);
            }
        }
    }

    /* Launches outside what was loaded or what the grid allows. */
    hum_launch_config bad = {.grid = {4, 2, 3}, .block = {256}, .dynamic_smem_bytes = (uint32_t)smem_bytes + 16};
    JT_STATUS(hum_kernel_launch(k, &bad, args), HUM_ERR_INVALID_ARG);
    bad.dynamic_smem_bytes = 0;
    bad.block[0] = 2048;
    JT_STATUS(hum_kernel_launch(k, &bad, args), HUM_ERR_INVALID_ARG);
    bad.block[0] = 256;
    bad.grid[0] = 0;
    JT_STATUS(hum_kernel_launch(k, &bad, args), HUM_ERR_INVALID_ARG);
    bad.grid[0] = 3;
    bad.cluster[0] = 2;
    JT_STATUS(hum_kernel_launch(k, &bad, args), HUM_ERR_INVALID_ARG);

    /* A cubin of another GPU generation does not load. */
    hum_jit_result foreign;
    req.arch = d->sm_major == 9 ? "sm_80" : "sm_90a";
    JT_OK(hum_jit_compile(cache, &req, &foreign));
    hum_kernel *wrong = NULL;
    JT_STATUS(hum_kernel_load(d->ordinal, &foreign, 0, &wrong), HUM_ERR_CUDA);
    JT_CHECK(wrong == NULL && strstr(hum_last_error(), "cuModuleLoadData"), "message: %s", hum_last_error());
    hum_jit_result_free(&foreign);

    free(out);
    free(ranks);
    JT_OK(hum_device_free(d_out));
    JT_OK(hum_device_free(d_ranks));
    hum_kernel_destroy(k);
    hum_jit_result_free(&compiled);
}

/* Box 8 x 32 floats (128-byte rows) from a 100 x 72 matrix with 80-float row pitch, at a corner
 * where 3 rows and 8 columns fall outside: those read as zero. */
enum { ROWS = 100, COLS = 72, PITCH = 80, BOX_ROWS = 8, BOX_COLS = 32, X0 = 48, Y0 = 96 };

static void check_tma(const hum_device_info *d, const char *cache, const char *arch)
{
    hum_jit_request req = {.source = "kernels/tma_probe.cu",
                           .constants = "constexpr int kBoxRows = 8;\nconstexpr int kBoxCols = 32;\n",
                           .kernel_name = "tma_probe",
                           .arch = arch};
    hum_jit_result compiled;
    JT_OK(hum_jit_compile(cache, &req, &compiled));
    hum_kernel *k;
    JT_OK(hum_kernel_load(d->ordinal, &compiled, 0, &k));
    float *host = malloc(sizeof(float) * ROWS * PITCH), *tile = malloc(sizeof(float) * BOX_ROWS * BOX_COLS);
    JT_CHECK(host && tile, "out of memory");
    for (int i = 0; i < ROWS * PITCH; i++)
        host[i] = (float)(i % 7919) + 0.25f;
    void *d_matrix, *d_tile;
    JT_OK(hum_device_alloc(d->ordinal, sizeof(float) * ROWS * PITCH, &d_matrix));
    JT_OK(hum_device_alloc(d->ordinal, sizeof(float) * BOX_ROWS * BOX_COLS, &d_tile));
    JT_OK(hum_memcpy_htod(d_matrix, host, sizeof(float) * ROWS * PITCH));
    const hum_tma_swizzle swizzles[] = {HUM_TMA_SWIZZLE_NONE, HUM_TMA_SWIZZLE_128B};
    for (int s = 0; s < 2; s++) {
        hum_tma_2d desc = {.dtype = HUM_DTYPE_FLOAT32, .global_address = d_matrix, .rows = ROWS, .cols = COLS,
                           .row_stride_bytes = PITCH * sizeof(float), .box_rows = BOX_ROWS, .box_cols = BOX_COLS,
                           .swizzle = swizzles[s]};
        hum_tensor_map map;
        JT_OK(hum_tma_encode_2d(&desc, &map));
        JT_OK(hum_memset_d8(d_tile, 0xFF, sizeof(float) * BOX_ROWS * BOX_COLS));
        int x0 = X0, y0 = Y0;
        void *args[] = {&map, &d_tile, &x0, &y0};
        hum_launch_config cfg = {.grid = {1}, .block = {128}};
        JT_OK(hum_kernel_launch(k, &cfg, args));
        JT_OK(hum_stream_synchronize(NULL));
        JT_OK(hum_memcpy_dtoh(tile, d_tile, sizeof(float) * BOX_ROWS * BOX_COLS));
        for (int r = 0; r < BOX_ROWS; r++) {
            for (int c = 0; c < BOX_COLS; c++) {
                int gr = Y0 + r, gc = X0 + c;
                float want = gr < ROWS && gc < COLS ? host[gr * PITCH + gc] : 0.0f;
                /* 128B swizzle: the 16-byte chunk j of 128-byte row r lands at chunk j ^ (r % 8). */
                int chunk = c / 4, at = s ? ((chunk ^ (r % 8)) * 4 + c % 4) : c;
                JT_CHECK(tile[r * BOX_COLS + at] == want, "swizzle %d: box (%d, %d) holds %g, expected %g",
                         (int)swizzles[s], r, c, tile[r * BOX_COLS + at], want);
            }
        }
    }
    free(host);
    free(tile);
    JT_OK(hum_device_free(d_matrix));
    JT_OK(hum_device_free(d_tile));
    hum_kernel_destroy(k);
    hum_jit_result_free(&compiled);
}

static void check_memory(const hum_device_info *d)
{
    enum { BYTES = 1 << 20 };
    unsigned char *src = malloc(BYTES), *back = malloc(BYTES);
    JT_CHECK(src && back, "out of memory");
    for (int i = 0; i < BYTES; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    void *p;
    JT_STATUS(hum_device_alloc(d->ordinal, 0, &p), HUM_ERR_INVALID_ARG);
    JT_STATUS(hum_device_alloc(1 << 20, 16, &p), HUM_ERR_INVALID_ARG);
    JT_OK(hum_device_alloc(d->ordinal, BYTES, &p));
    JT_OK(hum_memcpy_htod(p, src, BYTES));
    JT_OK(hum_memcpy_dtoh(back, p, BYTES));
    JT_CHECK(memcmp(src, back, BYTES) == 0, "host -> device -> host changed the data");
    JT_OK(hum_memset_d8((char *)p + 4096, 0x3C, 100));
    JT_OK(hum_memcpy_dtoh(back, p, BYTES));
    for (int i = 0; i < BYTES; i++)
        JT_CHECK(back[i] == (i >= 4096 && i < 4196 ? 0x3C : src[i]), "byte %d is 0x%02x after memset", i, back[i]);
    JT_STATUS(hum_memcpy_dtoh(back, src, 16), HUM_ERR_INVALID_ARG); /* a host pointer as the device side */
    JT_OK(hum_device_free(p));
    free(src);
    free(back);
}

/* The probes compile anywhere: check that before asking for a GPU, so that a machine without one
 * still catches a probe NVRTC rejects. */
static void compile_probes(const char *cache)
{
    hum_jit_request reqs[] = {
        {.source = "kernels/launch_probe.cu", .constants = "constexpr unsigned int kProbeSalt = 1u;\n",
         .kernel_name = "launch_probe", .arch = "sm_90a"},
        {.source = "kernels/tma_probe.cu", .constants = "constexpr int kBoxRows = 8;\nconstexpr int kBoxCols = 32;\n",
         .kernel_name = "tma_probe", .arch = "sm_90a"},
    };
    hum_jit_result out[2];
    JT_OK(hum_jit_compile_many(cache, reqs, 2, out, 0));
    hum_jit_result_free(&out[0]);
    hum_jit_result_free(&out[1]);
}

int main(void)
{
    char *cache = jt_make_temp_dir("gpu-selfcheck"), *kdir = jt_make_temp_dir("gpu-selfcheck-kernels");
    jt_write_file(kdir, "launch_probe.cu", probe_source);
    jt_write_file(kdir, "tma_probe.cu", tma_source);
    setenv("HUM_KERNEL_PATH", kdir, 1);
    compile_probes(cache);

    int32_t count = 0;
    hum_status st = hum_device_count(&count);
    if (st == HUM_ERR_NO_DEVICE) {
        printf("skipped: %s\n", hum_last_error());
        jt_remove_tree(cache);
        jt_remove_tree(kdir);
        free(cache);
        free(kdir);
        return 77;
    }
    JT_OK(st);
    hum_device_info d;
    JT_OK(hum_device_query(0, &d));
    char arch[16];
    JT_OK(hum_arch_for_device(&d, arch, sizeof arch));
    printf("device 0: %s, %s, %d SMs, %lld bytes smem/block opt-in, %lld bytes L2, %lld bytes, driver %d\n", d.name,
           arch, d.sm_count, (long long)d.max_smem_per_block_optin, (long long)d.l2_bytes,
           (long long)d.total_memory_bytes, d.driver_version);
    JT_CHECK(d.name[0] && d.sm_major >= 7 && d.sm_count > 0 && d.max_smem_per_block_optin >= 48 * 1024 &&
                 d.l2_bytes > 0 && d.total_memory_bytes > 0 && d.driver_version >= 12000,
             "implausible device properties");
    JT_STATUS(hum_device_query(count, &d), HUM_ERR_INVALID_ARG);
    JT_OK(hum_device_query(0, &d));

    hum_selfcheck_report report;
    uint32_t seed = (uint32_t)time(NULL);
    JT_OK(hum_selfcheck_run(0, cache, seed, &report));
    JT_CHECK(report.elements == 65536 + 77 && strcmp(report.arch, arch) == 0 && report.cache_hit == HUM_JIT_MISS,
             "report: %lld elements, arch %s, cache_hit %d", (long long)report.elements, report.arch, report.cache_hit);
    JT_OK(hum_selfcheck_run(0, cache, seed, &report));
    JT_CHECK(report.cache_hit != HUM_JIT_MISS, "the second self-check compiled again");

    check_memory(&d);
    check_launches(&d, cache, arch);
    if (d.sm_major >= 9)
        check_tma(&d, cache, arch);

    jt_remove_tree(cache);
    jt_remove_tree(kdir);
    free(cache);
    free(kdir);
    printf("selfcheck (gpu): ok\n");
    return 0;
}
