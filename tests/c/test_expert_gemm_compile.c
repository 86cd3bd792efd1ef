/* The expert GEMMs (MoE GEMM types) without a GPU: NVRTC compiles of every GEMM type's dispatch
 * table on sm_75, sm_80, sm_86, sm_89 and sm_90a (both kernel families, where the policy picks
 * them), for the Qwen3-30B-A3B shapes and for odd ones (K not a multiple of 8: gathered element
 * loads; bias and integer zero points), block M that is not a power of two under a site policy,
 * the warp-specialised family (wgmma_ws: its producer gathers the rows of A) on every MoE type,
 * the deployment override moe.activation = mxfp8 (rounded into 16-bit A on every arch),
 * and the rules that refuse what the expert GEMMs do not take, each naming it. */
#include "hum/hum_tools.h"
#include "quant_test.h"
#include "hum_ffi.h"
#include "rt_test.h"
#include "wgmma_test.h"

#include <string.h>

static const char *const ARCHS[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90a"}; /* sm_90a last */
static const hum_gemm_type TYPES[] = {HUM_GEMM_MOE_INDEXED, HUM_GEMM_MOE_GROUPED_CONTIGUOUS,
                                      HUM_GEMM_MOE_GROUPED_MASKED};
static const char *const TYPE_NAMES[] = {"", "indexed", "grouped_contiguous", "grouped_masked"};

/* Compiles the dispatch table of every MoE type for the spec over `experts` experts on each arch
 * of archs[0..count). */
static void compile_all(hum_runtime *rt, const char *spec_text, int64_t experts, const char *const *archs, size_t count)
{
    for (size_t a = 0; a < count; a++)
        for (size_t t = 0; t < sizeof TYPES / sizeof TYPES[0]; t++) {
            char text[160];
            /* sm_75 runs float16 only */
            snprintf(text, sizeof text, "%s,a=%s", spec_text, strcmp(archs[a], "sm_75") ? "bfloat16" : "float16");
            hum_layer_spec spec;
            hum_layer_info info;
            if (!QUANT_CHECK(hum_layer_spec_parse(text, &spec) == HUM_OK, "%s: %s", text, hum_last_error()))
                continue;
            const hum_status st = hum_expert_gemm_compile_spec(rt, &spec, experts, TYPES[t], archs[a], &info);
            int wgmma = 0;
            for (int32_t i = 0; st == HUM_OK && i < info.entry_count; i++)
                wgmma += info.entries[i].kernel == HUM_GEMM_KERNEL_WGMMA;
            if (QUANT_CHECK(st == HUM_OK && info.entry_count >= 1 && info.config.num_experts == experts,
                            "%s %s E=%lld on %s: %s", TYPE_NAMES[TYPES[t]], text, (long long)experts, archs[a],
                            hum_last_error()))
                printf("  %-6s %-18s E=%-3lld %-44s %d kernels (%d wgmma), %5.0f ms, %d compiled\n", archs[a],
                       TYPE_NAMES[TYPES[t]], (long long)experts, text, info.entry_count, wgmma, info.compile_ms,
                       info.kernels_compiled);
        }
}

static void check_refusals(hum_runtime *rt)
{
    hum_layer_spec spec;
    hum_layer_info info;
    QUANT_CHECK(hum_layer_spec_parse("n=256,k=256,w=e2m1,group=16,scale=e4m3,global=1", &spec) == HUM_OK, "%s",
                hum_last_error());
    hum_status st = hum_expert_gemm_compile_spec(rt, &spec, 8, HUM_GEMM_MOE_INDEXED, "sm_90a", &info);
    QUANT_CHECK(st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "global scale"),
                "global scales: status %d, '%s' should name the global scale", st, hum_last_error());
    QUANT_CHECK(hum_layer_spec_parse("n=256,k=256,w=uint4,group=128", &spec) == HUM_OK, "%s", hum_last_error());
    st = hum_expert_gemm_compile_spec(rt, &spec, 8, HUM_GEMM_DENSE, "sm_90a", &info);
    QUANT_CHECK(st == HUM_ERR_INVALID_ARG && strstr(hum_last_error(), "GEMM type"),
                "a dense expert GEMM: status %d, '%s' should name the GEMM type", st, hum_last_error());
    st = hum_expert_gemm_compile_spec(rt, &spec, 0, HUM_GEMM_MOE_INDEXED, "sm_90a", &info);
    QUANT_CHECK(st == HUM_ERR_INVALID_ARG && strstr(hum_last_error(), "experts"),
                "no experts: status %d, '%s' should name the experts", st, hum_last_error());

    /* the rule itself, as planning meets it: a dense type with experts, a MoE type without */
    hum_layer_config c;
    memset(&c, 0, sizeof c);
    c.n = c.k = c.padded_n = c.padded_k = c.kernel_group = 256;
    c.a_dtype = c.c_dtype = HUM_DTYPE_FLOAT16;
    c.weight_dtype = HUM_DTYPE_UINT4;
    c.scale_type = HUM_SCALE_CHANNEL;
    c.scale_rows = c.has_scale = 1;
    c.weight_bits = 4;
    c.num_experts = 4;
    const hum_tuning t = {1, INT64_MAX, 64, 128, 64, 64, 32, 64, 3, 1, 1, HUM_GEMM_KERNEL_MMA, 0, 0, 0, 0, 0, 0, 0, 0};
    hum_tuning out;
    const hum_compute_config dense = {.gemm_type = HUM_GEMM_DENSE}, indexed = {.gemm_type = HUM_GEMM_MOE_INDEXED};
    st = hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "dense type has none"),
                "dense with experts: status %d, '%s'", st, hum_last_error());
    c.num_experts = 0;
    st = hum_layer_fit_tuning(&c, &indexed, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "MoE types at least one"),
                "indexed without experts: status %d, '%s'", st, hum_last_error());
}

/* A MoE layer's shape: its spec, experts, and how many of TYPES its tables are compiled for. */
typedef struct {
    const char *spec;
    int64_t experts;
    int types;
} moe_case;

/* Compiles each case's tables for sm_90a under rt's policy, every entry (`entries` of them, or at
 * least one when 0) held to entry_ok, and prints a line per table. */
static void compile_sm90a(hum_runtime *rt, const moe_case *cases, size_t count, const char *what, int32_t entries,
                          int (*entry_ok)(const hum_tuning *t, int32_t e))
{
    for (size_t i = 0; i < count; i++)
        for (int t = 0; t < cases[i].types; t++) {
            hum_layer_spec spec;
            hum_layer_info info;
            if (!QUANT_CHECK(hum_layer_spec_parse(cases[i].spec, &spec) == HUM_OK, "%s: %s", cases[i].spec,
                             hum_last_error()))
                continue;
            const hum_status st = hum_expert_gemm_compile_spec(rt, &spec, cases[i].experts, TYPES[t], "sm_90a", &info);
            if (!QUANT_CHECK(st == HUM_OK && (entries ? info.entry_count == entries : info.entry_count >= 1),
                             "%s %s %s: %d entries: %s", what, TYPE_NAMES[TYPES[t]], cases[i].spec,
                             st == HUM_OK ? info.entry_count : -1, hum_last_error()))
                continue;
            for (int32_t e = 0; e < info.entry_count; e++)
                QUANT_CHECK(entry_ok(&info.entries[e], e), "%s %s %s entry %d: kernel %d, block_m %d, warp_m %d", what,
                            TYPE_NAMES[TYPES[t]], cases[i].spec, e, info.entries[e].kernel, info.entries[e].block_m,
                            info.entries[e].warp_m);
            printf("  sm_90a %-18s E=%-3lld %-52s %s: %d kernels, %5.0f ms\n", TYPE_NAMES[TYPES[t]],
                   (long long)cases[i].experts, cases[i].spec, what, info.entry_count, info.compile_ms);
        }
}

/* the odd block M policy's tiles in order, each on wgmma */
static int odd_block_ok(const hum_tuning *t, int32_t e)
{
    static const int32_t want[] = {8, 48, 80, 96, 112, 160, 176};
    return t->kernel == HUM_GEMM_KERNEL_WGMMA && t->block_m == want[e] && t->warp_m == want[e];
}

/* Block M that is not a power of two, and 8 (tests/support/wgmma_test.h): under the site policy
 * that puts 8, 48, 80, 96, 112, 160 and 176 on the rows per expert, the tables that
 * tests/gpu/test_expert_gemm.c runs on sm_90 (the small case's every type, the Qwen3 gate/up
 * indexed) compile for sm_90a with those tiles. */
static void check_odd_blocks(void)
{
    static const moe_case cases[] = {{"n=200,k=96,w=uint4,group=32,zp=int,bias=1,a=bfloat16", 33, 3},
                                     {"n=1536,k=2048,w=uint4,group=128,a=bfloat16", 32, 1}};
    char dir[512];
    hum_runtime *rt = wgmma_test_runtime_policy(WGMMA_ODD_BLOCK_POLICY, dir, sizeof dir);
    if (!QUANT_CHECK(rt != NULL, "the odd block M policy's runtime"))
        return;
    compile_sm90a(rt, cases, sizeof cases / sizeof cases[0], "odd block M 8..176", 7, odd_block_ok);
    hum_runtime_destroy(rt);
    rt_rmtree(dir);
}

static int ws_ok(const hum_tuning *t, int32_t e)
{
    (void)e;
    return t->kernel == HUM_GEMM_KERNEL_WGMMA_WS;
}

/* wgmma_ws under the wgmma test policy (tests/support/wgmma_test.h: six tiles, 16 x 256 x 128 to
 * 256 x 128 x 64, fewer where 8-bit A's promoted accumulators cap block M): the small case on every
 * MoE type, the Qwen3 gate/up and down projections and 8-bit e4m3 A indexed, each entry on
 * wgmma_ws (tests/gpu/test_expert_gemm.c runs these tiles). */
static void check_ws(void)
{
    static const moe_case cases[] = {{"n=200,k=96,w=uint4,group=32,zp=int,bias=1,a=bfloat16", 33, 3},
                                     {"n=1536,k=2048,w=uint4,group=128,a=bfloat16", 128, 1},
                                     {"n=2048,k=768,w=uint4,group=128,a=bfloat16", 128, 1},
                                     {"n=320,k=512,w=e4m3,a=e4m3", 12, 1}};
    /* C staged in a tile of its own, and in the last stage's slot */
    static const char *const C_TILES[] = {"own", "stage"};
    for (size_t c = 0; c < sizeof C_TILES / sizeof C_TILES[0]; c++) {
        char dir[512];
        hum_runtime *rt = wgmma_test_runtime("wgmma_ws", C_TILES[c], dir, sizeof dir);
        if (!QUANT_CHECK(rt != NULL, "the wgmma_ws policy's runtime, c_tile %s", C_TILES[c]))
            return;
        compile_sm90a(rt, cases, sizeof cases / sizeof cases[0], "wgmma_ws", 0, ws_ok);
        hum_runtime_destroy(rt);
        rt_rmtree(dir);
    }
}

/* The deployment override moe.activation = mxfp8: every GEMM type's table compiled for 16-bit A
 * that the layer rounds through mxfp8 (a_round; lua/hum/activation.lua: no block-scaled MMA
 * before sm_100), on every arch (the Qwen3-30B-A3B gate/up and down: uint4 with the weight's
 * group-128 scales; e4m3 weights; float16 on sm_75). */
static void check_mxfp8(void)
{
    char dir[4096];
    rt_tmpdir("expert-mxfp8", dir, sizeof dir);
    hum_runtime *rt = NULL;
    if (!QUANT_CHECK(rt_runtime_with_config(dir, RT_MOE_MXFP8_YAML, &rt) == HUM_OK, "the mxfp8 runtime: %s",
                     hum_last_error())) {
        rt_rmtree(dir);
        return;
    }
    static const struct {
        const char *arch, *spec;
        int64_t experts;
    } cases[] = {{"sm_90a", "n=1536,k=2048,w=uint4,group=128,a=bfloat16", 128},
                 {"sm_90a", "n=2048,k=768,w=uint4,group=128,a=bfloat16", 128},
                 {"sm_90a", "n=320,k=512,w=e4m3,a=float16", 12},
                 {"sm_89", "n=1536,k=2048,w=uint4,group=128,a=bfloat16", 128},
                 {"sm_89", "n=320,k=512,w=e4m3,a=bfloat16", 12},
                 {"sm_80", "n=1536,k=2048,w=uint4,group=128,a=bfloat16", 128},
                 {"sm_75", "n=1536,k=2048,w=uint4,group=128,a=float16", 128}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t t = 0; t < sizeof TYPES / sizeof TYPES[0]; t++) {
            hum_layer_spec spec;
            hum_layer_info info;
            if (!QUANT_CHECK(hum_layer_spec_parse(cases[i].spec, &spec) == HUM_OK, "%s: %s", cases[i].spec,
                             hum_last_error()))
                continue;
            const hum_status st =
                hum_expert_gemm_compile_spec(rt, &spec, cases[i].experts, TYPES[t], cases[i].arch, &info);
            if (!QUANT_CHECK(st == HUM_OK, "mxfp8 %s %s on %s: %s", TYPE_NAMES[TYPES[t]], cases[i].spec,
                             cases[i].arch, hum_last_error()))
                continue;
            QUANT_CHECK(info.config.a_dtype == spec.output_dtype && info.config.a_round == HUM_A_ROUND_MXFP8 &&
                            info.config.a_group == 0,
                        "mxfp8 %s %s on %s: A runs %s in groups of %lld, a_round %d, expected %s rounded through "
                        "mxfp8", TYPE_NAMES[TYPES[t]], cases[i].spec, cases[i].arch,
                        hum_dtype_name(info.config.a_dtype), (long long)info.config.a_group,
                        (int)info.config.a_round, hum_dtype_name(spec.output_dtype));
            printf("  %-6s %-18s E=%-3lld %-44s mxfp8 override: A %s, a_round %d, %d kernels, %5.0f ms\n",
                   cases[i].arch, TYPE_NAMES[TYPES[t]], (long long)cases[i].experts, cases[i].spec,
                   hum_dtype_name(info.config.a_dtype), (int)info.config.a_round, info.entry_count, info.compile_ms);
        }
    hum_runtime_destroy(rt);
    rt_rmtree(dir);
}

int main(void)
{
    hum_runtime *rt = NULL;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()))
        return quant_test_result("test_expert_gemm_compile");
    check_refusals(rt);
    /* every arch: K = 100 (gathered element loads on mma.sync), N not a multiple of 64, integer
     * zero points and bias, 33 experts */
    compile_all(rt, "n=200,k=100,w=uint4,group=32,zp=int,bias=1", 33, ARCHS, sizeof ARCHS / sizeof ARCHS[0]);
    /* the Qwen3-30B-A3B gate/up on sm_90a: both families, rows gathered 16 bytes at a time */
    compile_all(rt, "n=1536,k=2048,w=uint4,group=128", 128, ARCHS + 4, 1);
    /* act-order experts: each block's expert's columns gathered (mma.sync, also on sm_90a) */
    compile_all(rt, "n=256,k=384,w=uint4,group=128,actorder=1", 16, ARCHS + 3, 2);
    hum_runtime_destroy(rt);
    check_odd_blocks();
    check_ws();
    check_mxfp8();
    return quant_test_result("test_expert_gemm_compile");
}
