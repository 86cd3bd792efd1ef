/* MoE layers from checkpoints on the CPU: GPTQ checkpoints with one module per expert (Qwen's
 * gate_proj / up_proj / down_proj and Mixtral's w1 / w3 / w2 names) written by the GPTQ writer,
 * loaded by hum_moe_from_safetensors (shapes, expert counts, the experts a rank keeps); the
 * gate/up join (hum_standard_concat) checked row by row against the two projections it joins,
 * with integer zero points repacked across the join and biases; and the refusals (no such
 * module, projections quantized differently). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "hum/hum.h"
#include "hum/hum_tools.h"
#include "quant_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { E = 4, H = 64, I = 40 }; /* I * 4 bits = 160: zero points straddle int32 words at the join */

/* A dense uint4 weight, group 32, integer zero points, bias. */
static int make(quant_rng *rng, int64_t n, int64_t k, int bias, hum_standard_weight *w)
{
    float *v = malloc((size_t)(n * k) * sizeof *v), *b = malloc((size_t)n * sizeof *b);
    quant_fill_normal_f32(rng, v, n * k, 1.0);
    quant_fill_normal_f32(rng, b, n, 1.0);
    hum_quant_spec spec = {.weight_dtype = HUM_DTYPE_UINT4, .param_dtype = HUM_DTYPE_FLOAT16,
                           .scale_type = HUM_SCALE_GROUP, .group_size = 32, .zero_point = HUM_ZERO_POINT_INT,
                           .bias = bias ? b : NULL};
    const hum_status st = hum_quantize_reference(v, n, k, &spec, w);
    free(v);
    free(b);
    return QUANT_CHECK(st == HUM_OK, "weight %lld x %lld: %s", (long long)n, (long long)k, hum_last_error());
}

/* Writes E experts x (gate, up, down) under `prefix` with the three names; 1 on success. */
static int write_checkpoint(quant_rng *rng, const char *dir, const char *prefix, const char *const proj[3])
{
    hum_standard_weight w[3 * E];
    char names[3 * E][128];
    const char *ptrs[3 * E];
    memset(w, 0, sizeof w);
    int ok = 1;
    for (int e = 0; e < E && ok; e++)
        for (int p = 0; p < 3 && ok; p++) {
            snprintf(names[e * 3 + p], sizeof names[0], "%s.%d.%s", prefix, e, proj[p]);
            ptrs[e * 3 + p] = names[e * 3 + p];
            ok = make(rng, p == 2 ? H : I, p == 2 ? I : H, 1, &w[e * 3 + p]);
        }
    hum_checkpoint_write_options o = {.gptq_v2 = 1};
    ok = ok && QUANT_CHECK(hum_checkpoint_write_gptq(dir, ptrs, w, 3 * E, &o) == HUM_OK, "write: %s", hum_last_error());
    for (int i = 0; i < 3 * E; i++)
        hum_standard_free(&w[i]);
    return ok;
}

/* Every row of the joined weight against the gate's and the up's rows, dequantized. */
static void check_join(hum_runtime *rt, const char *dir, const char *prefix)
{
    char gname[256], uname[256];
    snprintf(gname, sizeof gname, "%s.*.gate_proj", prefix);
    snprintf(uname, sizeof uname, "%s.*.up_proj", prefix);
    hum_standard_weight g, u, j;
    memset(&g, 0, sizeof g);
    memset(&u, 0, sizeof u);
    memset(&j, 0, sizeof j);
    double *dg = malloc(I * H * sizeof *dg), *du = malloc(I * H * sizeof *du), *dj = malloc(2 * I * H * sizeof *dj);
    if (QUANT_CHECK(hum_layer_load_standard(rt, dir, gname, &g) == HUM_OK &&
                        hum_layer_load_standard(rt, dir, uname, &u) == HUM_OK &&
                        hum_standard_concat((const hum_standard_weight[]){g, u}, 2, &j) == HUM_OK &&
                        hum_standard_validate(&j) == HUM_OK,
                    "join: %s", hum_last_error())) {
        QUANT_CHECK(j.num_experts == E && j.n == 2 * I && j.k == H && j.has_zero_point && j.bias.data,
                    "joined: E %lld, N %lld, K %lld", (long long)j.num_experts, (long long)j.n, (long long)j.k);
        for (int e = 0; e < E; e++) {
            if (!QUANT_CHECK(hum_reference_dequant(&g, e, dg) == HUM_OK && hum_reference_dequant(&u, e, du) == HUM_OK &&
                                 hum_reference_dequant(&j, e, dj) == HUM_OK,
                             "%s", hum_last_error()))
                break;
            QUANT_CHECK(!memcmp(dj, dg, I * H * sizeof *dg) && !memcmp(dj + I * H, du, I * H * sizeof *du),
                        "expert %d: joined rows differ from gate then up", e);
            const uint16_t *jb = j.bias.data, *gb = g.bias.data, *ub = u.bias.data;
            QUANT_CHECK(!memcmp(jb + e * 2 * I, gb + e * I, I * 2) && !memcmp(jb + e * 2 * I + I, ub + e * I, I * 2),
                        "expert %d: joined bias", e);
        }
        /* quantized differently: refused */
        hum_standard_weight other = u;
        other.group_size = 64;
        hum_standard_weight none;
        QUANT_CHECK(hum_standard_concat((const hum_standard_weight[]){g, other}, 2, &none) != HUM_OK,
                    "different groups joined");
    }
    hum_standard_free(&g);
    hum_standard_free(&u);
    hum_standard_free(&j);
    free(dg);
    free(du);
    free(dj);
}

/* Gate and up of different global scales (ModelOpt NVFP4 and per-tensor FP8 experts: vLLM issue
 * 54974) join with each part's global scale folded into its own rows' float32 scales: NVFP4
 * (GROUP_TENSOR e4m3 group 16) becomes GROUP, every element within one float32 rounding of the
 * part's; per-tensor e4m3 becomes CHANNEL, exactly. A MoE layer of such experts is made (w2's
 * global scales folded too: tests/gpu/cli_run_formats.c runs one). */
static void check_fold(hum_runtime *rt, quant_rng *rng)
{
    static const struct {
        const char *what;
        hum_quant_spec spec;
        hum_scale_type folded;
        double tol;
    } cases[] = {
        {"nvfp4", {.num_experts = E, .weight_dtype = HUM_DTYPE_FLOAT4_E2M1, .param_dtype = HUM_DTYPE_BFLOAT16,
                   .scale_type = HUM_SCALE_GROUP_TENSOR, .group_size = 16, .scale_dtype = HUM_DTYPE_FLOAT8_E4M3FN},
         HUM_SCALE_GROUP, 0x1p-23},
        {"e4m3 per tensor", {.num_experts = E, .weight_dtype = HUM_DTYPE_FLOAT8_E4M3FN,
                             .param_dtype = HUM_DTYPE_BFLOAT16, .scale_type = HUM_SCALE_TENSOR},
         HUM_SCALE_CHANNEL, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        hum_standard_weight part[2], j, w2;
        memset(part, 0, sizeof part);
        memset(&j, 0, sizeof j);
        memset(&w2, 0, sizeof w2);
        float *v = malloc((size_t)(E * I * H) * sizeof *v);
        int ok = 1;
        for (int p = 0; p < 2 && ok; p++) { /* up 3x gate: another global scale per expert */
            quant_fill_normal_f32(rng, v, E * I * H, p ? 3.0 : 1.0);
            ok = QUANT_CHECK(hum_quantize_reference(v, I, H, &cases[c].spec, &part[p]) == HUM_OK, "%s: %s",
                             cases[c].what, hum_last_error());
        }
        ok = ok && QUANT_CHECK(memcmp(part[0].global_scale.data, part[1].global_scale.data, 4 * E) != 0,
                               "%s: the parts' global scales differ", cases[c].what);
        ok = ok && QUANT_CHECK(hum_standard_concat(part, 2, &j) == HUM_OK, "%s: join: %s", cases[c].what,
                               hum_last_error());
        ok = ok && QUANT_CHECK(!j.global_scale.data && j.scale_type == cases[c].folded &&
                                   j.scale_dtype == HUM_DTYPE_FLOAT32 && j.n == 2 * I,
                               "%s: joined with scale type %d, %s scales, global %p", cases[c].what, (int)j.scale_type,
                               hum_dtype_name(j.scale_dtype), j.global_scale.data);
        double *dj = malloc(2 * I * H * sizeof *dj), *dp = malloc(I * H * sizeof *dp);
        for (int e = 0; ok && e < E; e++)
            for (int p = 0; ok && p < 2; p++) {
                ok = QUANT_CHECK(hum_reference_dequant(&j, e, dj) == HUM_OK &&
                                     hum_reference_dequant(&part[p], e, dp) == HUM_OK,
                                 "%s", hum_last_error());
                for (int64_t i = 0; ok && i < I * H; i++)
                    ok = QUANT_CHECK(fabs(dj[p * I * H + i] - dp[i]) <= cases[c].tol * fabs(dp[i]),
                                     "%s: expert %d part %d element %lld: %.9g joined, %.9g the part's", cases[c].what,
                                     e, p, (long long)i, dj[p * I * H + i], dp[i]);
            }
        /* the layer: w2 of the same kind, each expert's global scale folded too */
        quant_fill_normal_f32(rng, v, E * I * H, 1.0);
        hum_moe_options o;
        hum_moe_options_init(&o);
        o.top_k = 2;
        hum_moe *moe = NULL;
        if (ok && QUANT_CHECK(hum_quantize_reference(v, H, I, &cases[c].spec, &w2) == HUM_OK, "%s", hum_last_error()))
            QUANT_CHECK(hum_moe_from_standard(rt, &j, &w2, &o, &moe) == HUM_OK,
                        "%s: the layer: %s", cases[c].what, hum_last_error());
        hum_moe_destroy(moe);
        hum_standard_free(&part[0]);
        hum_standard_free(&part[1]);
        hum_standard_free(&j);
        hum_standard_free(&w2);
        free(v);
        free(dj);
        free(dp);
    }
}

static void check_load(hum_runtime *rt, const char *dir, const char *prefix)
{
    hum_moe_options o;
    hum_moe_options_init(&o);
    o.top_k = 2;
    hum_moe *moe = NULL;
    hum_moe_info info;
    if (QUANT_CHECK(hum_moe_from_safetensors(rt, dir, prefix, &o, &moe) == HUM_OK &&
                        hum_moe_get_info(moe, &info) == HUM_OK,
                    "%s: %s", prefix, hum_last_error()))
        QUANT_CHECK(info.experts == E && info.global_experts == E && info.hidden == H && info.intermediate == I,
                    "%s: E %lld of %lld, H %lld, I %lld", prefix, (long long)info.experts,
                    (long long)info.global_experts, (long long)info.hidden, (long long)info.intermediate);
    hum_moe_destroy(moe);
    const int32_t keep[1] = {2};
    o.experts = keep;
    o.expert_count = 1;
    moe = NULL;
    if (QUANT_CHECK(hum_moe_from_safetensors(rt, dir, prefix, &o, &moe) == HUM_OK &&
                        hum_moe_get_info(moe, &info) == HUM_OK,
                    "%s, expert 2 only: %s", prefix, hum_last_error()))
        QUANT_CHECK(info.experts == 1 && info.global_experts == E, "expert 2 only: %lld of %lld",
                    (long long)info.experts, (long long)info.global_experts);
    hum_moe_destroy(moe);
}

int main(void)
{
    quant_rng rng = quant_rng_fresh("test_moe_load");
    char dir[] = "/tmp/hum-moe-load-XXXXXX";
    hum_runtime *rt = NULL;
    if (!QUANT_CHECK(mkdtemp(dir) != NULL && hum_runtime_create(NULL, &rt) == HUM_OK, "setup: %s", hum_last_error()))
        return quant_test_result("test_moe_load");
    char qwen[300], mixtral[300];
    snprintf(qwen, sizeof qwen, "%s/qwen", dir);
    snprintf(mixtral, sizeof mixtral, "%s/mixtral", dir);
    static const char *const qwen_proj[3] = {"gate_proj", "up_proj", "down_proj"};
    static const char *const mixtral_proj[3] = {"w1", "w3", "w2"};
    if (write_checkpoint(&rng, qwen, "model.layers.0.mlp.experts", qwen_proj)) {
        check_join(rt, qwen, "model.layers.0.mlp.experts");
        check_load(rt, qwen, "model.layers.0.mlp.experts");
        hum_moe_options o;
        hum_moe_options_init(&o);
        o.top_k = 2;
        hum_moe *moe = (hum_moe *)1;
        QUANT_CHECK(hum_moe_from_safetensors(rt, qwen, "model.layers.1.mlp.experts", &o, &moe) == HUM_ERR_FORMAT &&
                        moe == NULL && strstr(hum_last_error(), "model.layers.1.mlp.experts.*.gate_proj"),
                    "missing module: %s", hum_last_error());
    }
    check_fold(rt, &rng);
    if (write_checkpoint(&rng, mixtral, "model.layers.0.block_sparse_moe.experts", mixtral_proj))
        check_load(rt, mixtral, "model.layers.0.block_sparse_moe.experts");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    QUANT_CHECK(system(cmd) == 0, "%s", cmd);
    hum_runtime_destroy(rt);
    return quant_test_result("test_moe_load");
}
