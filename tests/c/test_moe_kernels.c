/* Every MoE kernel variant compiled by NVRTC for every arch from sm_75 to sm_90a, as a layer's
 * prepare would ask for it: the routing layout (kernels/moe/align.cu, one set for all layers),
 * and the activation and combine of each activation function, gate/up layout and activation
 * dtype (kernels/moe/act.cu, combine.cu; bfloat16 from sm_80 on, as layers allow) for the
 * indexed layout, the activation of the grouped contiguous and masked ones, the activation
 * writing 8-bit codes and scales for e4m3 and int8 down GEMMs (per row; MXFP8's e4m3 with e8m0
 * scales per 32 columns), the activation rounding its output through mxfp8 for a 16-bit down
 * GEMM (a_round; float16 and bfloat16, odd and vector sizes); and a whole MoE layer compiled
 * from its SPEC (hum_moe_compile_spec: both expert GEMMs' tables, one block_m per range, and
 * those kernels) on sm_80 and sm_90a, and a grouped masked one on sm_90a. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "hum/hum_tools.h"
#include "jit.h"
#include "moe_align.h"
#include "moe_kernels.h"
#include "quant_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_REQS = 64 };

int main(void)
{
    static const char *const archs[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90a"};
    char dir[] = "/tmp/hum-moe-kernels-XXXXXX";
    if (!QUANT_CHECK(mkdtemp(dir) != NULL, "temp dir"))
        return quant_test_result("test_moe_kernels");
    static char constants[MAX_REQS][HUM_MOE_CONSTANTS_CAP];
    hum_jit_request reqs[MAX_REQS];
    hum_jit_result res[MAX_REQS];
    int total = 0;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        int n = 0;
        hum_moe_align_requests(archs[a], reqs);
        n += HUM_MOE_ALIGN_KERNELS;
        for (int bf16 = 0; bf16 <= (strcmp(archs[a], "sm_75") ? 1 : 0); bf16++)
            for (int act = HUM_MOE_SILU; act <= HUM_MOE_GELU; act++)
                for (int inter = 0; inter <= (act == HUM_MOE_RELU2 ? 0 : 1); inter++) {
                    /* odd sizes take the element-by-element paths, multiples of 8 the vector ones */
                    for (int type = HUM_GEMM_MOE_INDEXED; type <= HUM_GEMM_MOE_GROUPED_MASKED; type++) {
                        if (type != HUM_GEMM_MOE_INDEXED && act != HUM_MOE_SILU)
                            continue; /* the layout's rows and the activation are apart in the kernel */
                        const hum_moe_shape s = {act, inter, bf16, type, inter ? 2048 : 100, inter ? 768 : 36, 33,
                                                 0,   0,     0,    HUM_A_ROUND_NONE};
                        hum_jit_request two[HUM_MOE_LAYER_KERNELS];
                        hum_moe_kernel_requests(&s, archs[a], constants[n], two);
                        reqs[n++] = two[0];
                        if (act == HUM_MOE_SILU && type == HUM_GEMM_MOE_INDEXED) /* kBf16 and kHidden only */
                            reqs[n++] = two[1];
                        /* the activation fused with the per-row quantization of a down GEMM of
                         * 8-bit A (int8 from sm_80, e4m3 from sm_89; e4m3's software encoder
                         * before), for the bfloat16 layers such GEMMs are */
                        /* and MXFP8's e4m3 with e8m0 scales per 32 columns */
                        static const struct {
                            hum_dtype a;
                            int32_t group;
                            hum_dtype scale;
                        } a8[3] = {{HUM_DTYPE_FLOAT8_E4M3FN, 0, HUM_DTYPE_FLOAT32},
                                   {HUM_DTYPE_INT8, 0, HUM_DTYPE_FLOAT32},
                                   {HUM_DTYPE_FLOAT8_E4M3FN, 32, HUM_DTYPE_FLOAT8_E8M0}};
                        const int quantized = bf16 && ((act == HUM_MOE_SILU && !inter) || act == HUM_MOE_RELU2);
                        for (int q = 0; quantized && q < 3; q++) {
                            hum_moe_shape s8 = s;
                            s8.down_a = a8[q].a;
                            s8.down_group = a8[q].group;
                            s8.down_scale = a8[q].scale;
                            hum_moe_kernel_requests(&s8, archs[a], constants[n], two);
                            reqs[n++] = two[0];
                        }
                        if ((act == HUM_MOE_SILU && !inter) || act == HUM_MOE_RELU2) {
                            hum_moe_shape sr = s;
                            sr.down_a = bf16 ? HUM_DTYPE_BFLOAT16 : HUM_DTYPE_FLOAT16;
                            sr.down_round = HUM_A_ROUND_MXFP8;
                            hum_moe_kernel_requests(&sr, archs[a], constants[n], two);
                            reqs[n++] = two[0];
                        }
                    }
                }
        memset(res, 0, sizeof res);
        QUANT_CHECK(hum_jit_compile_many(dir, reqs, n, res, 0) == HUM_OK, "%s: %s", archs[a], hum_last_error());
        for (int i = 0; i < n; i++) {
            QUANT_CHECK(res[i].cubin_size > 0, "%s for %s: no cubin", reqs[i].kernel_name, archs[a]);
            hum_jit_result_free(&res[i]);
        }
        total += n;
    }
    printf("  %d MoE kernels compiled\n", total);
    hum_runtime *rt = NULL;
    if (QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error())) {
        static const char *const layer_archs[] = {"sm_80", "sm_90a"};
        hum_moe_spec spec;
        hum_moe_compile_info info;
        QUANT_CHECK(hum_moe_spec_parse("e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128", &spec) == HUM_OK,
                    "%s", hum_last_error());
        for (int a = 0; a < 2; a++) {
            if (!QUANT_CHECK(hum_moe_compile_spec(rt, &spec, layer_archs[a], &info) == HUM_OK, "layer on %s: %s",
                             layer_archs[a], hum_last_error()))
                continue;
            int same = info.gate_up.entry_count == info.down.entry_count && info.gate_up.entry_count >= 1;
            for (int32_t i = 0; same && i < info.gate_up.entry_count; i++)
                same = info.gate_up.entries[i].block_m == info.down.entries[i].block_m;
            QUANT_CHECK(same && info.gate_up.config.num_experts == 128 && info.down.config.n == 2048 &&
                            info.down.config.k == 768 && info.kernels_compiled + info.kernels_cached ==
                                info.gate_up.entry_count + info.down.entry_count + HUM_MOE_ALIGN_KERNELS +
                                    HUM_MOE_LAYER_KERNELS,
                        "layer on %s: %d and %d ranges, %d + %d kernels", layer_archs[a], info.gate_up.entry_count,
                        info.down.entry_count, info.kernels_compiled, info.kernels_cached);
            printf("  MoE layer on %s: %d gate/up and %d down ranges, %d kernels compiled, %d cached\n",
                   layer_archs[a], info.gate_up.entry_count, info.down.entry_count, info.kernels_compiled,
                   info.kernels_cached);
        }
        spec.gemm_type = HUM_GEMM_MOE_GROUPED_MASKED;
        QUANT_CHECK(hum_moe_compile_spec(rt, &spec, "sm_90a", &info) == HUM_OK && info.gate_up.entry_count >= 1 &&
                        info.down.entry_count >= 1,
                    "gemm=masked: %s", hum_last_error());
        hum_runtime_destroy(rt);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    QUANT_CHECK(system(cmd) == 0, "%s", cmd);
    return quant_test_result("test_moe_kernels");
}
