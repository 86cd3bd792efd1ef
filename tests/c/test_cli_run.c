/* `hum run` and `hum bench` as a user runs them on a machine without a CUDA driver: --help
 * exits 0; `hum run` on a small GPTQ checkpoint loads and converts the layer (its shape is
 * printed) and then fails cleanly with the no-GPU message and exit 1; a wrong layer, a bad
 * --input and usage errors are reported as such (exit 1 or 2), on an experts module too (a --topk
 * past its experts, --input); `hum bench` without a GPU exits 1 with the same message. */
#define _POSIX_C_SOURCE 200809L /* setenv, popen */
#include "cli_test.h"
#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char LAYER[] = "model.layers.0.mlp.down_proj";

/* A GPTQ checkpoint of one experts module, two experts of gate / up [128][256] and down
 * [256][128] (uint4, groups of 128). */
static void write_experts(const char *dir)
{
    static const char *const proj[] = {"gate_proj", "up_proj", "down_proj"};
    hum_standard_weight std[6] = {0};
    char names[6][96];
    const char *list[6];
    float *w = malloc(128 * 256 * sizeof *w);
    uint64_t s = 777;
    for (int i = 0; w && i < 128 * 256; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        w[i] = (float)((double)(s >> 11) * 0x1p-53 - 0.5);
    }
    const hum_quant_spec spec = {.weight_dtype = HUM_DTYPE_UINT4, .param_dtype = HUM_DTYPE_FLOAT16,
                                 .scale_type = HUM_SCALE_GROUP, .group_size = 128, .zero_point = HUM_ZERO_POINT_NONE};
    int ok = RT_CHECK(w != NULL, "weights");
    for (int i = 0; ok && i < 6; i++) {
        const int down = i % 3 == 2;
        snprintf(names[i], sizeof names[i], "model.layers.0.mlp.experts.%d.%s", i / 3, proj[i % 3]);
        list[i] = names[i];
        ok = RT_CHECK(hum_quantize_reference(w, down ? 256 : 128, down ? 128 : 256, &spec, &std[i]) == HUM_OK,
                      "quantize: %s", hum_last_error());
    }
    const hum_checkpoint_write_options opts = {0};
    if (ok)
        RT_CHECK(hum_checkpoint_write_gptq(dir, list, std, 6, &opts) == HUM_OK, "write: %s", hum_last_error());
    for (int i = 0; i < 6; i++)
        hum_standard_free(&std[i]);
    free(w);
}

/* input.safetensors holding `input` of the given dtype and shape (zeros). */
static void write_input(const char *path, hum_dtype dtype, int64_t m, int64_t k)
{
    uint16_t *zeros = calloc((size_t)(m * k), 2);
    hum_safetensors_tensor t = {.name = "input", .dtype = dtype, .rank = 2, .shape = {m, k}, .data = zeros};
    RT_CHECK(hum_safetensors_write(path, &t, 1, NULL) == HUM_OK, "write %s: %s", path, hum_last_error());
    free(zeros);
}

int main(void)
{
    char dir[4096], ckpt[4200], input[4200], args[16384];
    rt_tmpdir("cli-run", dir, sizeof dir);
    snprintf(ckpt, sizeof ckpt, "%s/ckpt", dir);
    char cache[4200];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    setenv("HUM_CACHE_DIR", cache, 1);
    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    unsetenv("HUM_CONFIG");
    unsetenv("HUM_POLICY_PATH");
    cli_write_checkpoint(ckpt, LAYER);

    RT_CHECK(cli_hum("run --help") == 0, "run --help:\n%s", cli_output);
    cli_has("run --help", "usage: hum run CHECKPOINT --layer NAME");
    cli_has("run --help", "--check");
    cli_has("run --help", "--config FILE");
    RT_CHECK(cli_hum("bench --help") == 0, "bench --help:\n%s", cli_output);
    cli_has("bench --help", "usage: hum bench --layer SPEC");
    cli_has("bench --help", "--config FILE");

    snprintf(args, sizeof args, "run %s --layer %s --m 1,3 --check", ckpt, LAYER);
    RT_CHECK(cli_hum(args) == 1, "run without a GPU exits 1:\n%s", cli_output);
    cli_has("run without a GPU", "N = 64, K = 256, uint4 weights");
    cli_has("run without a GPU", "hum run: no GPU to run on: no CUDA driver");

    snprintf(args, sizeof args, "run %s --layer model.layers.0.mlp.up_proj", ckpt);
    RT_CHECK(cli_hum(args) == 1, "an unknown layer exits 1:\n%s", cli_output);
    cli_has("unknown layer", "model.layers.0.mlp.up_proj");

    snprintf(input, sizeof input, "%s/input.safetensors", dir);
    write_input(input, HUM_DTYPE_FLOAT16, 3, 128);
    snprintf(args, sizeof args, "run %s --layer %s --input %s", ckpt, LAYER, input);
    RT_CHECK(cli_hum(args) == 1, "an input of the wrong K exits 1:\n%s", cli_output);
    cli_has("wrong K", "tensor 'input'");
    cli_has("wrong K", "[M, 256]");
    cli_has("wrong K", "is F16 [3, 128]"); /* what was found, not just "a different shape" */
    write_input(input, HUM_DTYPE_BFLOAT16, 3, 256);
    snprintf(args, sizeof args, "run %s --layer %s --input %s --activation float16", ckpt, LAYER, input);
    RT_CHECK(cli_hum(args) == 1, "contradicting --activation exits 1:\n%s", cli_output);
    cli_has("contradicting dtype", "--activation float16");
    cli_has("contradicting dtype", "bfloat16 activations");

    snprintf(args, sizeof args, "run %s", ckpt);
    RT_CHECK(cli_hum(args) == 2, "no --layer is a usage error:\n%s", cli_output);
    cli_has("no --layer", "--layer NAME is required");
    snprintf(args, sizeof args, "run %s --layer %s --m 1,0", ckpt, LAYER);
    RT_CHECK(cli_hum(args) == 2, "a bad M list is a usage error:\n%s", cli_output);
    cli_has("bad M", "'0'");
    snprintf(args, sizeof args, "run %s --layer %s --output %s/out.safetensors", ckpt, LAYER, dir);
    RT_CHECK(cli_hum(args) == 2, "--output without --input is a usage error:\n%s", cli_output);
    snprintf(args, sizeof args, "run %s --layer %s --activation float32", ckpt, LAYER);
    RT_CHECK(cli_hum(args) == 2, "a bad activation dtype is a usage error:\n%s", cli_output);
    cli_has("bad activation", "float32");
    /* e4m3 by its dtype name, as configs take it: no usage error (here no GPU, exit 1 after the load) */
    snprintf(args, sizeof args, "run %s --layer %s --activation float8_e4m3fn", ckpt, LAYER);
    RT_CHECK(cli_hum(args) != 2 && !strstr(cli_output, "expected float16, bfloat16"),
             "--activation float8_e4m3fn is e4m3:\n%s", cli_output);
    RT_CHECK(cli_hum("run --frobnicate") == 2, "unknown option:\n%s", cli_output);

    RT_CHECK(cli_hum("bench") == 2, "bench without --layer:\n%s", cli_output);
    RT_CHECK(cli_hum("bench --layer n=64,k=256,w=uint4,a=float16,group=128 --m 1,2") == 1, "bench without a GPU:\n%s",
             cli_output);
    cli_has("bench without a GPU", "hum bench: no GPU to run on: no CUDA driver");
    RT_CHECK(cli_hum("bench --moe-gemm n=256,k=256,w=uint4,a=float16,group=128 --experts 8 --topk 2") == 1,
             "bench --moe-gemm without a GPU:\n%s", cli_output);
    cli_has("bench --moe-gemm without a GPU", "hum bench: no GPU to run on: no CUDA driver");
    RT_CHECK(cli_hum("bench --layer n=64,k=256,w=uint4,a=float16,group=128 --reps 0") == 2, "bench --reps 0:\n%s",
             cli_output);
    /* strtol alone read an empty --warmup as 0 and took " 5" and "+5"; each is a usage error naming it */
    RT_CHECK(cli_hum("bench --layer n=64,k=256,w=uint4,a=float16,group=128 --warmup ''") == 2, "bench --warmup '':\n%s",
             cli_output);
    cli_has("bench --warmup ''", "--warmup ''");
    RT_CHECK(cli_hum("bench --layer n=64,k=256,w=uint4,a=float16,group=128 --reps ' 5'") == 2, "bench --reps ' 5':\n%s",
             cli_output);
    RT_CHECK(cli_hum("bench --layer n=64,k=256,w=uint4,a=float16,group=128 --warmup +5") == 2, "bench --warmup +5:\n%s",
             cli_output);

    /* an experts module of two experts: a --topk past them is the command line's mistake (exit 2
     * before the GPU is looked for); with --input the error says experts modules run without it */
    snprintf(ckpt, sizeof ckpt, "%s/moe", dir);
    write_experts(ckpt);
    snprintf(args, sizeof args, "run %s --layer model.layers.0.mlp.experts --topk 3", ckpt);
    RT_CHECK(cli_hum(args) == 2, "--topk past the experts is a usage error:\n%s", cli_output);
    cli_has("--topk 3 of 2 experts", "'--topk 3' (model.layers.0.mlp.experts has 2 experts: expected 1..2)");
    snprintf(args, sizeof args, "run %s --layer model.layers.0.mlp.experts --topk 2", ckpt);
    RT_CHECK(cli_hum(args) == 1, "an experts module without a GPU exits 1:\n%s", cli_output);
    cli_has("experts without a GPU", "hum run: no GPU to run on");
    snprintf(args, sizeof args, "run %s --layer model.layers.0.mlp.experts --input %s", ckpt, input);
    RT_CHECK(cli_hum(args) == 1, "an experts module with --input exits 1:\n%s", cli_output);
    cli_has("experts with --input", "--input runs a dense layer; an experts module runs without it");

    rt_rmtree(dir);
    return rt_test_result("test_cli_run");
}
