/* The activation-quantization kernel (kernels/prep/quantize_a.cu) against its CPU twin
 * (hum_quantize_activations): bit-identical codes and scales per token, per tensor, per group of
 * 128 (float32) and of 32 (e8m0, MXFP8), e4m3fn and int8, from float16 and bfloat16, with
 * all-zero rows and groups, magnitudes across the whole bfloat16 range, partial last groups,
 * padded code columns, unaligned rows (element loads and stores), column-major group scales,
 * more rows than a grid's y extent, and per token each CTA shape hum_act_quant_launch gives
 * (64, 128 and 256 threads: rows held whole, rows read twice past what 256 threads hold); MXFP8
 * as rounding (q of A's 16-bit type, no scales) from float16 and bfloat16 with all-zero groups,
 * partial last groups, K % 8 != 0, elements past 448 x the scale and far below it (subnormal
 * codes), unaligned rows and rows past a wave of CTAs. Then the e4m3fn encoder of encode.cuh in both forms,
 * the fp8 conversion instruction (sm_89+) and the integer one, over every finite float32.
 * Skipped (77) without a GPU. */
#define _GNU_SOURCE
#include "act_quant.h"
#include "device.h"
#include "gemm_test.h"
#include "jit.h"
#include "jit_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static hum_kernel *load(const char *arch, const char *source, const char *name)
{
    const hum_jit_request req = {.source = source, .kernel_name = name, .arch = arch};
    hum_jit_result res;
    hum_kernel *k = NULL;
    if (QUANT_CHECK(hum_jit_compile(NULL, &req, &res) == HUM_OK, "%s: %s", source, hum_last_error())) {
        QUANT_CHECK(hum_kernel_load(0, &res, 0, &k) == HUM_OK, "%s: %s", source, hum_last_error());
        hum_jit_result_free(&res);
    }
    return k;
}

static void *device_copy(const void *host, size_t bytes)
{
    void *d = NULL;
    if (!QUANT_CHECK(hum_device_alloc(0, bytes ? bytes : 1, &d) == HUM_OK &&
                         (!host || hum_memcpy_htod(d, host, bytes) == HUM_OK),
                     "device buffer of %zu bytes: %s", bytes, hum_last_error()))
        return NULL;
    return d;
}

typedef struct qcase {
    int64_t m, k, kq, lda, ldq;
    hum_act_scale mode;
    int32_t group;
    hum_dtype codes, scales, in;
    float input_scale;
    /* the SM count the launch is shaped for: 0 the GPU's; 1 puts per-token rows on the fewest
     * threads that hold them from M = 5 on (hum_act_quant_launch) */
    int32_t sms;
    int round; /* MXFP8 as rounding: q of A's type (ldq in its elements), no scales */
} qcase;

static void run_case(const hum_kernel *const kernels[2], const qcase *c, int32_t gpu_sms, quant_rng *rng)
{
    const hum_kernel *kernel = kernels[c->round]; /* hum_quantize_a, hum_quantize_a_round */
    const int32_t sm_count = c->sms ? c->sms : gpu_sms;
    const int64_t m = c->m, k = c->k, groups = c->mode == HUM_ACT_SCALE_GROUP ? (k + c->group - 1) / c->group : 1;
    const int grouped = c->mode == HUM_ACT_SCALE_GROUP, tensor = c->mode == HUM_ACT_SCALE_TENSOR;
    const size_t q_size = c->round ? 2 : 1, a_bytes = (size_t)(m * c->lda) * 2, q_bytes = (size_t)(m * c->ldq) * q_size;
    const size_t s_size = c->scales == HUM_DTYPE_FLOAT8_E8M0 ? 1 : 4, s_bytes = (size_t)(m * groups) * s_size;
    uint16_t *a = malloc(a_bytes);
    uint8_t *q_cpu = malloc(q_bytes), *q_gpu = malloc(q_bytes), *s_cpu = malloc(s_bytes), *s_gpu = malloc(s_bytes);
    for (int64_t r = 0; r < m; r++) {
        /* row 0 zero, row 1's first group zero, others of one magnitude each across the range */
        const int e =
            c->in == HUM_DTYPE_BFLOAT16 ? (int)quant_rng_below(rng, 250) - 130 : (int)quant_rng_below(rng, 30) - 14;
        for (int64_t j = 0; j < c->lda; j++) {
            double v = quant_rng_normal(rng) * ldexp(1.0, e);
            if (c->round && j % 32 == 9) /* far below its group's largest: subnormal e4m3fn codes, or 0 */
                v *= ldexp(1.0, -8 - (int)(j / 32 % 6));
            if (r == 0 || (r == 1 && j < (grouped ? c->group : 8)) || j >= k)
                v = 0.0;
            uint16_t code = 0;
            if (hum_dtype_encode(c->in, &v, 1, &code) != HUM_OK ||
                (code & 0x7FFF) >= (c->in == HUM_DTYPE_BFLOAT16 ? 0x7F80 : 0x7C00))
                code = 0x0000;
            a[r * c->lda + j] = code;
        }
    }
    /* the same poison on both sides: codes past kq inside ldq are never written */
    memset(q_cpu, 0xA5, q_bytes);
    memset(s_cpu, 0xA5, s_bytes);
    hum_tensor ta = {.data = a, .dtype = c->in, .rank = 2, .shape = {m, k}, .strides = {c->lda, 1}};
    hum_tensor tq = {.data = q_cpu, .dtype = c->round ? c->in : c->codes, .rank = 2, .shape = {m, c->kq}, .strides = {c->ldq, 1}};
    /* group scales column-major ([G][M]), token scales [M] */
    hum_tensor ts = {.data = s_cpu, .dtype = c->scales, .rank = 2, .shape = {m, groups},
                     .strides = {1, grouped ? m : 1}};
    const hum_act_quant how = {c->codes, c->mode, c->group, c->scales};
    char label[192];
    snprintf(label, sizeof label, "%s -> %s%s, %s%d %s, M %lld K %lld Kq %lld lda %lld ldq %lld, launch for %d SMs",
             hum_dtype_name(c->in), hum_dtype_name(c->codes), c->round ? " rounded" : "", tensor ? "tensor" : grouped ? "group " : "token",
             grouped ? c->group : 0, hum_dtype_name(c->scales), (long long)m, (long long)k, (long long)c->kq,
             (long long)c->lda, (long long)c->ldq, sm_count);
    if (!QUANT_CHECK(hum_quantize_activations(&ta, &how, c->input_scale, &tq, tensor || c->round ? NULL : &ts) == HUM_OK,
                     "%s: twin: %s", label, hum_last_error()))
        goto done;
    void *d_a = device_copy(a, a_bytes), *d_q = device_copy(NULL, q_bytes), *d_s = device_copy(NULL, s_bytes);
    void *d_in = device_copy(&c->input_scale, 4);
    if (!d_a || !d_q || !d_s || !d_in)
        goto free_device;
    hum_quantize_args args;
    const hum_act_quant_out out = {.q = d_q, .ldq = c->ldq, .kq = c->kq, .scale = c->round ? NULL : d_s,
                                   .scale_row = 1, .scale_group = grouped ? m : 0, .input_scale = d_in,
                                   .round = c->round};
    if (QUANT_CHECK(hum_memset_d8(d_q, 0xA5, q_bytes) == HUM_OK && hum_memset_d8(d_s, 0xA5, s_bytes) == HUM_OK &&
                        hum_act_quant_args(&how, d_a, c->in, c->lda, m, k, &out, &args) == HUM_OK &&
                        hum_act_quant_launch(kernel, &args, sm_count, NULL, 0) == HUM_OK &&
                        hum_stream_synchronize(NULL) == HUM_OK && hum_memcpy_dtoh(q_gpu, d_q, q_bytes) == HUM_OK &&
                        hum_memcpy_dtoh(s_gpu, d_s, s_bytes) == HUM_OK,
                    "%s: %s", label, hum_last_error())) {
        int64_t diff = 0, first = -1;
        for (size_t i = 0; i < q_bytes; i++)
            if (q_gpu[i] != q_cpu[i] && diff++ == 0)
                first = (int64_t)i;
        /* rounded: the element's two bytes, low first */
        const int64_t at = first >= 0 ? first / (int64_t)q_size : 0, b0 = at * (int64_t)q_size;
        QUANT_CHECK(diff == 0, "%s: %lld of %zu q bytes differ, first at row %lld col %lld: GPU 0x%02x%02x, CPU "
                    "0x%02x%02x", label, (long long)diff, q_bytes, (long long)(at / c->ldq), (long long)(at % c->ldq),
                    q_size == 2 ? q_gpu[b0 + 1] : 0, q_gpu[b0], q_size == 2 ? q_cpu[b0 + 1] : 0, q_cpu[b0]);
        diff = 0;
        for (size_t i = 0; i < s_bytes; i++)
            if (s_gpu[i] != s_cpu[i] && diff++ == 0)
                first = (int64_t)i;
        QUANT_CHECK(diff == 0, "%s: %lld of %zu scale bytes differ (first at byte %lld)", label, (long long)diff,
                    s_bytes, (long long)first);
        int nan = 0;
        for (int64_t r = 0; r < m && c->codes == HUM_DTYPE_FLOAT8_E4M3FN && !c->round; r++)
            for (int64_t j = 0; j < c->kq; j++)
                nan += (q_gpu[r * c->ldq + j] & 0x7F) == 0x7F;
        QUANT_CHECK(nan == 0, "%s: %d NaN codes", label, nan);
    }
free_device:
    hum_device_free(d_a);
    hum_device_free(d_q);
    hum_device_free(d_s);
    hum_device_free(d_in);
done:
    free(a);
    free(q_cpu);
    free(q_gpu);
    free(s_cpu);
    free(s_gpu);
}

/* Both e4m3fn encoders of kernels/numerics/encode.cuh over every finite float32 (and inf), in
 * either half of the instruction's pair, and e4m3_round (MXFP8's rounding) against the value of
 * e4m3_soft's code, decoded here bit for bit (-0 included); counts the disagreements. */
static const char encoder_check[] =
    "#include \"numerics/encode.cuh\"\n"
    "extern \"C\" __global__ void encoder_check(unsigned long long *bad, unsigned *first)\n"
    "{\n"
    "    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < (1ull << 32); i += (u64)gridDim.x * blockDim.x) "
    "{\n"
    "        const u32 b = (u32)i;\n"
    "        if ((b & 0x7FFFFFFFu) > 0x7F800000u)\n"
    "            continue;\n"
    "        const float x = __uint_as_float(b);\n"
    "        const u32 want = enc::e4m3_soft(x) | enc::e4m3_soft(-x) << 8;\n"
    "        const u32 c = want & 0xFFu, e = c >> 3 & 15u, m = c & 7u;\n"
    "        const float mag = e ? __uint_as_float((e + 120u) << 23 | m << 20) : (float)m * 0.001953125f;\n"
    "        const float value = c & 0x80u ? -mag : mag;\n"
    "        if (enc::e4m3x2(x, -x) != want || __float_as_uint(enc::e4m3_round(x)) != __float_as_uint(value)) {\n"
    "            atomicAdd(bad, 1ull);\n"
    "            atomicMin(first, b);\n"
    "        }\n"
    "    }\n"
    "}\n";

static void check_encoders(const char *arch)
{
    char *dir = jt_make_temp_dir("quantize-a-kernels");
    jt_write_file(dir, "encoder_check.cu", encoder_check);
    setenv("HUM_KERNEL_PATH", dir, 1);
    hum_kernel *k = load(arch, "kernels/encoder_check.cu", "encoder_check");
    unsetenv("HUM_KERNEL_PATH");
    if (!k)
        return;
    unsigned long long bad = 0;
    unsigned first = 0xFFFFFFFFu;
    void *d_bad = device_copy(&bad, sizeof bad), *d_first = device_copy(&first, sizeof first);
    void *args[] = {&d_bad, &d_first};
    hum_launch_config cfg = {.grid = {4096, 1, 1}, .block = {256, 1, 1}};
    if (QUANT_CHECK(d_bad && d_first && hum_kernel_launch(k, &cfg, args) == HUM_OK &&
                        hum_stream_synchronize(NULL) == HUM_OK &&
                        hum_memcpy_dtoh(&bad, d_bad, sizeof bad) == HUM_OK &&
                        hum_memcpy_dtoh(&first, d_first, sizeof first) == HUM_OK,
                    "encoder check: %s", hum_last_error()))
        QUANT_CHECK(bad == 0, "e4m3fn encoders (or e4m3_round) disagree on %llu finite float32 values (first 0x%08x)",
                    bad, first);
    hum_device_free(d_bad);
    hum_device_free(d_first);
    hum_kernel_destroy(k);
}

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("test_quantize_a_gpu");
    hum_device_info dev;
    char arch[16];
    if (!QUANT_CHECK(hum_device_query(0, &dev) == HUM_OK && hum_arch_for_device(&dev, arch, sizeof arch) == HUM_OK,
                     "%s", hum_last_error()))
        return quant_test_result("test_quantize_a_gpu");
    hum_kernel *kernels[2] = {load(arch, "kernels/prep/quantize_a.cu", "hum_quantize_a"),
                              load(arch, "kernels/prep/quantize_a.cu", "hum_quantize_a_round")};
    const hum_dtype E4 = HUM_DTYPE_FLOAT8_E4M3FN, I8 = HUM_DTYPE_INT8, F32 = HUM_DTYPE_FLOAT32,
                    E8 = HUM_DTYPE_FLOAT8_E8M0, F16 = HUM_DTYPE_FLOAT16, BF16 = HUM_DTYPE_BFLOAT16;
    const qcase cases[] = {
        /* per token: launched for the GPU, 256 threads for fewer rows than a wave; sms 1: 64 or 128 */
        {1, 8192, 8192, 8192, 8192, HUM_ACT_SCALE_TOKEN, 0, E4, F32, BF16, 0, 0, 0},
        {64, 8192, 8192, 8192, 8192, HUM_ACT_SCALE_TOKEN, 0, E4, F32, F16, 0, 1, 0},
        {37, 1000, 1024, 1003, 1024, HUM_ACT_SCALE_TOKEN, 0, I8, F32, BF16, 0, 1, 0},
        {300, 4096, 4096, 4096, 4101, HUM_ACT_SCALE_TOKEN, 0, I8, F32, F16, 0, 0, 0},
        {9, 4097, 4097, 4097, 4104, HUM_ACT_SCALE_TOKEN, 0, E4, F32, F16, 0, 1, 0},
        {7, 5000, 5008, 5001, 5008, HUM_ACT_SCALE_TOKEN, 0, I8, F32, F16, 0, 1, 0},
        {70000, 40, 64, 40, 64, HUM_ACT_SCALE_TOKEN, 0, E4, F32, F16, 0, 0, 0},
        /* 256 threads holding the row whole, and just past what 128 hold */
        {4, 14336, 14336, 14336, 14336, HUM_ACT_SCALE_TOKEN, 0, I8, F32, BF16, 0, 1, 0},
        {6, 8193, 8193, 8193, 8200, HUM_ACT_SCALE_TOKEN, 0, E4, F32, BF16, 0, 1, 0},
        {5, 16384, 16384, 16384, 16384, HUM_ACT_SCALE_TOKEN, 0, E4, F32, F16, 0, 1, 0},
        /* rows past the 16384 columns a per-token CTA holds in registers: the rest read twice */
        {3, 20000, 20480, 20001, 20480, HUM_ACT_SCALE_TOKEN, 0, E4, F32, F16, 0, 0, 0},
        {5, 24576, 24576, 24576, 24576, HUM_ACT_SCALE_TOKEN, 0, I8, F32, BF16, 0, 1, 0},
        {129, 8192, 8192, 8192, 8192, HUM_ACT_SCALE_TENSOR, 0, E4, F32, BF16, 0.0123f, 0, 0},
        {33, 1000, 1000, 1001, 1000, HUM_ACT_SCALE_TENSOR, 0, I8, F32, F16, 0.031f, 0, 0},
        {3, 256, 256, 256, 256, HUM_ACT_SCALE_TENSOR, 0, E4, F32, F16, 0.0f, 0, 0},
        {200, 7168, 7168, 7168, 7168, HUM_ACT_SCALE_GROUP, 128, E4, F32, BF16, 0, 0, 0},
        {17, 2000, 2048, 2000, 2048, HUM_ACT_SCALE_GROUP, 128, E4, F32, F16, 0, 0, 0},
        {9, 1000, 1000, 1003, 1001, HUM_ACT_SCALE_GROUP, 128, I8, F32, BF16, 0, 0, 0},
        {150, 4096, 4096, 4096, 4096, HUM_ACT_SCALE_GROUP, 32, E4, E8, BF16, 0, 0, 0},
        {21, 1000, 1024, 1000, 1024, HUM_ACT_SCALE_GROUP, 32, E4, E8, F16, 0, 0, 0},
        {70000, 96, 128, 96, 128, HUM_ACT_SCALE_GROUP, 32, E4, E8, BF16, 0, 0, 0},
        /* groups and the tensor's scale past a wave of CTAs: each CTA's rows 4 at a time, the last
         * batch short (sms 1: 4 CTAs, 275 / 750 rows each) */
        {2500, 2048, 2048, 2048, 2048, HUM_ACT_SCALE_GROUP, 128, E4, F32, F16, 0, 0, 0},
        {1100, 2000, 2048, 2003, 2048, HUM_ACT_SCALE_GROUP, 128, I8, F32, BF16, 0, 1, 0},
        {3000, 1000, 1000, 1001, 1000, HUM_ACT_SCALE_TENSOR, 0, E4, F32, F16, 0.02f, 1, 0},
        /* MXFP8 as rounding: aligned, K % 32 != 0 and K % 8 != 0 (element loads and stores, padded
         * columns), odd strides, a single row, rows past a wave (sms 1 and the GPU's) */
        {150, 4096, 4096, 4096, 4096, HUM_ACT_SCALE_GROUP, 32, E4, E8, BF16, 0, 0, 1},
        {21, 1000, 1024, 1000, 1024, HUM_ACT_SCALE_GROUP, 32, E4, E8, F16, 0, 0, 1},
        {13, 203, 208, 205, 211, HUM_ACT_SCALE_GROUP, 32, E4, E8, BF16, 0, 0, 1},
        {1, 2052, 2052, 2052, 2056, HUM_ACT_SCALE_GROUP, 32, E4, E8, F16, 0, 0, 1},
        {70000, 96, 128, 96, 128, HUM_ACT_SCALE_GROUP, 32, E4, E8, F16, 0, 0, 1},
        {1100, 2000, 2048, 2003, 2048, HUM_ACT_SCALE_GROUP, 32, E4, E8, BF16, 0, 1, 1},
    };
    for (size_t i = 0; kernels[0] && kernels[1] && i < sizeof cases / sizeof cases[0]; i++)
        run_case((const hum_kernel *const *)kernels, &cases[i], dev.sm_count, &rng);
    hum_kernel_destroy(kernels[0]);
    hum_kernel_destroy(kernels[1]);
    check_encoders(arch);
    return quant_test_result("test_quantize_a_gpu");
}
