/* `hum run --check` on a small GPTQ checkpoint on the GPU (skipped without one): passes for
 * float16 and bfloat16 activations at M = 1, 3, 100 (N and K not multiples of 128), and
 * --input/--output writes the output of given activations, which this test compares with its
 * own float64 reference of the weights it wrote. */
#define _POSIX_C_SOURCE 200809L /* setenv, popen */
#include "cli_test.h"
#include "quant_test.h"
#include "rt_test.h"
#include "device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char LAYER[] = "model.layers.3.self_attn.o_proj";
enum { N = 320, K = 576, M_IO = 7 };

int main(void)
{
    int32_t gpus = 0;
    if (hum_device_count(&gpus) != HUM_OK) {
        printf("cli_run_check: skipped (%s)\n", hum_last_error());
        return 77;
    }
    char dir[4096], ckpt[4200], in[4200], out[4200], args[16384];
    rt_tmpdir("cli-run-gpu", dir, sizeof dir);
    snprintf(ckpt, sizeof ckpt, "%s/ckpt", dir);
    snprintf(in, sizeof in, "%s/a.safetensors", dir);
    snprintf(out, sizeof out, "%s/c.safetensors", dir);
    unsetenv("HUM_CONFIG");
    quant_rng rng = quant_rng_fresh("cli_run_check");

    float *w = malloc(N * K * sizeof *w);
    for (int i = 0; i < N * K; i++)
        w[i] = (float)(quant_rng_uniform(&rng) - 0.5);
    hum_quant_spec spec = {.weight_dtype = HUM_DTYPE_UINT4, .param_dtype = HUM_DTYPE_FLOAT16,
                           .scale_type = HUM_SCALE_GROUP, .group_size = 128, .zero_point = HUM_ZERO_POINT_INT};
    hum_standard_weight std = {0};
    RT_CHECK(hum_quantize_reference(w, N, K, &spec, &std) == HUM_OK, "quantize: %s", hum_last_error());
    const char *names[] = {LAYER};
    hum_checkpoint_write_options opts = {.gptq_v2 = 1};
    RT_CHECK(hum_checkpoint_write_gptq(ckpt, names, &std, 1, &opts) == HUM_OK, "write: %s", hum_last_error());

    snprintf(args, sizeof args, "run %s --layer %s --m 1,3,100 --check", ckpt, LAYER);
    RT_CHECK(cli_hum(args) == 0, "float16 --check:\n%s", cli_output);
    RT_CHECK(cli_count(": ok") == 3 && cli_count("FAIL") == 0, "three passing M:\n%s", cli_output);
    snprintf(args, sizeof args, "run %s --layer %s --m 1,3,100 --check --activation bfloat16", ckpt, LAYER);
    RT_CHECK(cli_hum(args) == 0, "bfloat16 --check:\n%s", cli_output);
    RT_CHECK(cli_count(": ok") == 3 && cli_count("FAIL") == 0, "three passing M:\n%s", cli_output);

    /* Given activations in, the output file out, checked here against hum_reference_gemm. */
    double *a = malloc(M_IO * K * sizeof *a), *ref = malloc(M_IO * N * sizeof *ref),
           *got = malloc(M_IO * N * sizeof *got);
    uint16_t *codes = malloc(M_IO * K * 2);
    for (int i = 0; i < M_IO * K; i++)
        a[i] = 4.0 * quant_rng_uniform(&rng) - 2.0;
    hum_dtype_encode(HUM_DTYPE_FLOAT16, a, M_IO * K, codes);
    hum_dtype_decode(HUM_DTYPE_FLOAT16, codes, M_IO * K, a);
    hum_safetensors_tensor t = {
        .name = "input", .dtype = HUM_DTYPE_FLOAT16, .rank = 2, .shape = {M_IO, K}, .data = codes};
    RT_CHECK(hum_safetensors_write(in, &t, 1, NULL) == HUM_OK, "input: %s", hum_last_error());
    snprintf(args, sizeof args, "run %s --layer %s --input %s --output %s --check", ckpt, LAYER, in, out);
    RT_CHECK(cli_hum(args) == 0 && cli_count(": ok") == 1, "--input/--output:\n%s", cli_output);
    hum_safetensors *st = NULL;
    hum_safetensors_tensor o;
    if (RT_CHECK(hum_safetensors_open(out, &st) == HUM_OK, "open %s: %s", out, hum_last_error()) &&
        RT_CHECK(hum_safetensors_find(st, "output", &o) == HUM_OK, "%s", hum_last_error()) &&
        RT_CHECK(o.dtype == HUM_DTYPE_FLOAT16 && o.rank == 2 && o.shape[0] == M_IO && o.shape[1] == N,
                 "output is %s rank %d [%lld, %lld]", o.dtype_name, o.rank, (long long)o.shape[0],
                 (long long)o.shape[1])) {
        uint16_t *oc = malloc(M_IO * N * 2);
        memcpy(oc, o.data, M_IO * N * 2);
        hum_dtype_decode(HUM_DTYPE_FLOAT16, oc, M_IO * N, got);
        hum_reference_gemm(&std, 0, a, M_IO, ref);
        double d2 = 0, r2 = 0;
        for (int i = 0; i < M_IO * N; i++) {
            d2 += (got[i] - ref[i]) * (got[i] - ref[i]);
            r2 += ref[i] * ref[i];
        }
        RT_CHECK(sqrt(d2 / r2) < 1e-2, "output file: relative error %g", sqrt(d2 / r2));
        free(oc);
    }
    hum_safetensors_close(st);
    hum_standard_free(&std);
    free(w), free(a), free(ref), free(got), free(codes);
    rt_rmtree(dir);
    return rt_test_result("cli_run_check");
}
