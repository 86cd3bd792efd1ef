/* `hum run --check` on an FP8 block-wise checkpoint (DeepSeek-style: e4m3 weights with float32
 * 128 x 128 weight_scale_inv, activation_scheme "dynamic"; tests/support/fixture_float.c) on a
 * GPU of sm_89 or newer (skipped otherwise): the layer runs its own scheme, e4m3 activations
 * per 1 x 128 group with the block scales applied in float32 (kernels/gemm/kscale.cuh), by
 * default and under the deployment config's linear.activation e4m3, and passes --check against
 * A quantized the same way at M = 1, 7, 130, for float16 and bfloat16 A (N and K not multiples
 * of 128); asked for as mxfp8 the layer rounds A to mxfp8's values (1 x 32 e8m0 groups) in its
 * 16-bit type and runs the 16-bit GEMM, and passes against A rounded the same way. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "cli_test.h"
#include "fixture.h"
#include "quant_test.h"
#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char LAYER[] = "model.layers.0.mlp.down_proj";
enum { N = 1000, K = 1104, BLOCK = 128 };

int main(void)
{
    int32_t gpus = 0;
    hum_device_info dev;
    if (hum_device_count(&gpus) != HUM_OK || gpus < 1 || hum_device_query(0, &dev) != HUM_OK) {
        printf("cli_run_check_fp8: skipped (no GPU)\n");
        return 77;
    }
    if (dev.sm_major * 10 + dev.sm_minor < 89) {
        printf("cli_run_check_fp8: skipped (%s has no e4m3 tensor cores)\n", dev.name);
        return 77;
    }
    char dir[4096], args[8192];
    rt_tmpdir("cli-run-fp8", dir, sizeof dir);
    unsetenv("HUM_CONFIG");
    quant_rng rng = quant_rng_fresh("cli_run_check_fp8");

    enum { ROWS = (N + BLOCK - 1) / BLOCK, COLS = (K + BLOCK - 1) / BLOCK };
    double *v = malloc(N * K * sizeof *v);
    uint8_t *codes = malloc(N * K);
    float scale[ROWS * COLS];
    for (int i = 0; i < N * K; i++)
        v[i] = 400.0 * (quant_rng_uniform(&rng) - 0.5);
    hum_dtype_encode(HUM_DTYPE_FLOAT8_E4M3FN, v, N * K, codes);
    for (int i = 0; i < ROWS * COLS; i++)
        scale[i] = (float)(1e-4 * (0.5 + quant_rng_uniform(&rng)));
    const fx_fp8_block fx = {.n = N, .k = K, .block_n = BLOCK, .block_k = BLOCK, .codes = codes, .scale = scale,
                             .scale_dtype = "F32"};
    RT_CHECK(fx_write_fp8_block(dir, LAYER, &fx) == 0, "fp8 block fixture in %s", dir);

    char e4m3[4200], mxfp8[4200];
    snprintf(e4m3, sizeof e4m3, "%s", rt_write(dir, "e4m3.yaml", "overrides:\n  linear:\n    activation: e4m3\n"));
    snprintf(mxfp8, sizeof mxfp8, "%s", rt_write(dir, "mxfp8.yaml", "overrides:\n  linear:\n    activation: mxfp8\n"));
    const struct {
        const char *config, *flags, *says;
    } runs[] = {
        {e4m3, "", "activations: e4m3 per 1x128 group (override linear.activation = e4m3; quantized by the layer)"},
        {e4m3, " --activation bfloat16", "activations: e4m3 per 1x128 group (override linear.activation = e4m3"},
        {mxfp8, "", "activations: mxfp8 (override linear.activation = mxfp8; rounded by the layer, computed in"},
        {NULL, "", "activations: e4m3 per 1x128 group (the checkpoint's; quantized by the layer)"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char config[4300] = "";
        if (runs[i].config)
            snprintf(config, sizeof config, "--config %s ", runs[i].config);
        snprintf(args, sizeof args, "%srun %s --layer %s --m 1,7,130 --check%s", config, dir, LAYER, runs[i].flags);
        RT_CHECK(cli_hum(args) == 0, "hum %s:\n%s", args, cli_output);
        RT_CHECK(strstr(cli_output, runs[i].says) != NULL, "hum %s should say '%s':\n%s", args, runs[i].says,
                 cli_output);
        RT_CHECK(cli_count(": ok") == 3 && cli_count("FAIL") == 0, "hum %s: three passing M:\n%s", args, cli_output);
    }
    free(v);
    free(codes);
    rt_rmtree(dir);
    return rt_test_result("cli_run_check_fp8");
}
