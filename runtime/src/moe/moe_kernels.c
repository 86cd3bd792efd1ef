/* Compiling and launching the activation and the combine (moe_kernels.h). */
#include "moe_kernels.h"

#include "gemm_variant.h"
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Grid-stride kernels of 256 threads: enough CTAs to keep every SM's memory pipes busy
 * (8 per SM), fewer when there is less work. */
enum { THREADS = 256, CTAS_PER_SM = 8 };

void hum_moe_kernel_requests(const hum_moe_shape *s, const char *arch, char *constants,
                             hum_jit_request reqs[HUM_MOE_LAYER_KERNELS])
{
    snprintf(constants, HUM_MOE_CONSTANTS_CAP,
             "#pragma once\n"
             "namespace hum_cfg {\n"
             "constexpr int kAct = %d;\n"
             "constexpr bool kInterleaved = %s;\n"
             "constexpr bool kBf16 = %s;\n"
             "constexpr int kInter = %lld;\n"
             "constexpr int kHidden = %lld;\n"
             "constexpr int kGemmType = %d;\n"
             "constexpr int kExperts = %lld;\n"
             "}\n",
             s->activation, s->interleaved ? "true" : "false", s->bf16 ? "true" : "false", (long long)s->intermediate,
             (long long)s->hidden, s->gemm_type, (long long)s->experts);
    /* the 8-bit output's type and scale groups are the template arguments of the kernel that
     * writes it (a rounded output's: mxfp8's); its name lives in `constants` past the header's
     * terminating zero */
    const int q = s->down_a == HUM_DTYPE_FLOAT8_E4M3FN ? 1 : s->down_a == HUM_DTYPE_INT8 ? 2 : 0;
    const size_t used = strlen(constants) + 1;
    char *act = constants + used;
    if (s->down_round == HUM_A_ROUND_MXFP8)
        snprintf(act, HUM_MOE_CONSTANTS_CAP - used, "hum_moe_act_quant<1, 32, true, true>");
    else if (q)
        snprintf(act, HUM_MOE_CONSTANTS_CAP - used, "hum_moe_act_quant<%d, %d, %s, false>", q, (int)s->down_group,
                 s->down_scale == HUM_DTYPE_FLOAT8_E8M0 ? "true" : "false");
    else
        snprintf(act, HUM_MOE_CONSTANTS_CAP - used, "hum_moe_act");
    reqs[0] = (hum_jit_request){.source = "kernels/moe/act.cu", .constants = constants, .kernel_name = act,
                                .arch = arch};
    reqs[1] = (hum_jit_request){.source = "kernels/moe/combine.cu", .constants = constants,
                                .kernel_name = "hum_moe_combine", .arch = arch};
}

static uint32_t grid_for(int64_t work, int32_t sm_count)
{
    const int64_t ctas = (work + THREADS - 1) / THREADS, cap = (int64_t)sm_count * CTAS_PER_SM;
    return (uint32_t)(ctas < 1 ? 1 : ctas < cap ? ctas : cap);
}

hum_status hum_moe_act_launch(const hum_kernel *k, struct CUstream_st *stream, int32_t sm_count, const void *in,
                              void *out, int32_t quantizes, void *scale, int64_t scale_ld, const void *layout,
                              const int32_t *post_padded, int64_t positions, int64_t intermediate, int32_t rows,
                              const hum_moe_options *o)
{
    float alpha = o->alpha, beta = o->beta, limit = o->limit;
    long long ld = scale_ld;
    void *args16[] = {(void *)&in, &out, (void *)&layout, (void *)&post_padded, &rows, &alpha, &beta, &limit};
    void *args8[] = {(void *)&in, &out, &scale, &ld, (void *)&layout, (void *)&post_padded, &rows, &alpha, &beta,
                     &limit};
    /* 16-bit out: a thread per 8 columns; 8-bit (or rounded) out: a warp per row
     * (kernels/moe/act.cu) */
    const int64_t threads = quantizes ? positions * 32 : positions * ((intermediate + 7) / 8);
    hum_launch_config c = {.grid = {grid_for(threads, sm_count), 1, 1},
                           .block = {THREADS, 1, 1}, .stream = stream, .overlap_previous = 1};
    return hum_kernel_launch(k, &c, quantizes ? args8 : args16);
}

int64_t hum_moe_act_scale_ld(const hum_layer_config *down)
{
    if (!hum_gemm_a8(down))
        return 0;
    return down->a_group ? (down->k + down->a_group - 1) / down->a_group : 1;
}

int64_t hum_moe_act_scale_bytes(const hum_layer_config *down, int64_t rows)
{
    return rows * hum_moe_act_scale_ld(down) * (hum_gemm_a_scale_dtype(down) == HUM_DTYPE_FLOAT8_E8M0 ? 1 : 4);
}

hum_status hum_moe_combine_launch(const hum_kernel *k, struct CUstream_st *stream, int32_t sm_count, int64_t hidden,
                                  const hum_moe_combine_args *a)
{
    /* 16-byte stores need out and its row stride 16-byte aligned */
    int32_t out_vec = ((uintptr_t)a->out % 16 == 0) && (a->ldo * 2) % 16 == 0;
    void *args[] = {(void *)&a->y,     (void *)&a->ids,     (void *)&a->ids64, (void *)&a->map,
                    (void *)&a->e_global, (void *)&a->e_local, (void *)&a->weights, (void *)&a->top_k,
                    (void *)&a->m,     (void *)&a->out,     (void *)&a->ldo,   (void *)&a->accumulate,
                    &out_vec};
    hum_launch_config c = {.grid = {grid_for((int64_t)a->m * ((hidden + 7) / 8), sm_count), 1, 1},
                           .block = {THREADS, 1, 1}, .stream = stream, .overlap_previous = 1};
    return hum_kernel_launch(k, &c, args);
}
