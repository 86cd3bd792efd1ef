/* The JIT cache key follows the text of everything a kernel includes, and nothing else. */
#define _GNU_SOURCE
#include "jit_support.h"
#include "jit.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void key_of(const hum_jit_request *req, char out[33])
{
    JT_OK(hum_jit_key(req, out, 33));
    JT_CHECK(strlen(out) == 32 && strspn(out, "0123456789abcdef") == 32, "key '%s' is not 32 hex digits", out);
}

/* Compiles req (for sm_90a) through the cache in `cache`. */
static hum_jit_result compile(const char *cache, const hum_jit_request *req)
{
    hum_jit_result r;
    JT_OK(hum_jit_compile(cache, req, &r));
    JT_CHECK(jt_cubin_is_for(r.cubin, r.cubin_size, 90), "cubin of %s is not an sm_90 CUDA ELF", req->kernel_name);
    return r;
}

int main(void)
{
    char *kdir = jt_make_temp_dir("jit-key-kernels"), *cache = jt_make_temp_dir("jit-key-cache");
    setenv("HUM_KERNEL_PATH", kdir, 1);
    jt_write_file(kdir, "probe.cu",
                  "#include \"outer.cuh\"\n"
                  "  #  include \"hum_constants.h\"\n"
                  "#include <cuda_fp16.h>\n"
                  "extern \"C\" __global__ void probe(int *out) { out[0] = kOuter + kInner + kConst; }\n");
    jt_write_file(kdir, "outer.cuh", "#pragma once\n#include \"nested/inner.cuh\"\nconstexpr int kOuter = 1;\n");
    jt_write_file(kdir, "nested/inner.cuh", "#pragma once\nconstexpr int kInner = 20;\n");
    jt_write_file(kdir, "unrelated.cuh", "#pragma once\nconstexpr int kUnrelated = 5;\n");

    hum_jit_request req = {.source = "kernels/probe.cu",
                           .constants = "#pragma once\nconstexpr int kConst = 300;\n",
                           .kernel_name = "probe",
                           .arch = "sm_90a"};
    char base[33], k[33];
    key_of(&req, base);
    key_of(&req, k);
    JT_CHECK(strcmp(base, k) == 0, "the key of one request changed between calls: %s then %s", base, k);

    /* A header two levels down changes: new key. Restoring its text restores the key, even
     * though the file's modification time has moved on: content counts, not mtime. */
    jt_write_file(kdir, "nested/inner.cuh", "#pragma once\nconstexpr int kInner = 21;\n");
    key_of(&req, k);
    JT_CHECK(strcmp(base, k) != 0, "changing nested/inner.cuh did not change the key %s", base);
    hum_jit_result changed = compile(cache, &req);
    jt_write_file(kdir, "nested/inner.cuh", "#pragma once\nconstexpr int kInner = 20;\n");
    key_of(&req, k);
    JT_CHECK(strcmp(base, k) == 0, "restoring nested/inner.cuh gave key %s, expected %s", k, base);
    hum_jit_result original = compile(cache, &req);
    JT_CHECK(original.cache_hit == HUM_JIT_MISS && changed.cache_hit == HUM_JIT_MISS, "both texts must compile anew");
    JT_CHECK(strcmp(original.key, base) == 0, "compile used key %s, hum_jit_key said %s", original.key, base);
    JT_CHECK(original.cubin_size != changed.cubin_size ||
                 memcmp(original.cubin, changed.cubin, original.cubin_size) != 0,
             "kInner = 20 and kInner = 21 produced the same cubin: the nested header did not reach NVRTC");
    hum_jit_result_free(&original);
    hum_jit_result_free(&changed);

    /* The directly included header too. */
    jt_write_file(kdir, "outer.cuh", "#pragma once\n#include \"nested/inner.cuh\"\nconstexpr int kOuter = 2;\n");
    key_of(&req, k);
    JT_CHECK(strcmp(base, k) != 0, "changing outer.cuh did not change the key");
    jt_write_file(kdir, "outer.cuh", "#pragma once\n#include \"nested/inner.cuh\"\nconstexpr int kOuter = 1;\n");

    /* A file nobody includes, and a file that only looks like a dependency, do not count. */
    jt_write_file(kdir, "unrelated.cuh", "#pragma once\nconstexpr int kUnrelated = 6;\n");
    jt_write_file(kdir, "cuda_fp16.h", "#error this is not the toolkit header\n");
    key_of(&req, k);
    JT_CHECK(strcmp(base, k) == 0, "an unrelated file changed the key: %s, expected %s", k, base);
    char path[4096];
    snprintf(path, sizeof path, "%s/cuda_fp16.h", kdir);
    unlink(path);

    /* Every other input of the key. */
    hum_jit_request other = req;
    other.constants = "#pragma once\nconstexpr int kConst = 301;\n";
    key_of(&other, k);
    JT_CHECK(strcmp(base, k) != 0, "the constants text is not in the key");
    other = req;
    other.arch = "sm_89";
    key_of(&other, k);
    JT_CHECK(strcmp(base, k) != 0, "the arch is not in the key");
    other = req;
    other.fast_math = 1;
    key_of(&other, k);
    JT_CHECK(strcmp(base, k) != 0, "--use_fast_math is not in the key");
    other = req;
    other.kernel_name = "(probe)";
    key_of(&other, k);
    JT_CHECK(strcmp(base, k) != 0, "the kernel name is not in the key");
    jt_write_file(kdir, "probe.cu",
                  "#include \"outer.cuh\"\n#include \"hum_constants.h\"\n#include <cuda_fp16.h>\n"
                  "extern \"C\" __global__ void probe(int *out) { out[0] = kOuter + kInner + kConst + 1; }\n");
    key_of(&req, k);
    JT_CHECK(strcmp(base, k) != 0, "the source text is not in the key");

    /* Requests the key cannot be computed for. */
    other = req;
    other.constants = NULL;
    JT_STATUS(hum_jit_key(&other, k, sizeof k), HUM_ERR_INVALID_ARG);
    JT_CHECK(strstr(hum_last_error(), "hum_constants.h"), "message should name hum_constants.h");
    jt_write_file(kdir, "escape.cu", "#include \"../secret.cuh\"\n");
    other = req;
    other.source = "kernels/escape.cu";
    JT_STATUS(hum_jit_key(&other, k, sizeof k), HUM_ERR_INVALID_ARG);
    JT_CHECK(strstr(hum_last_error(), "../secret.cuh"), "message should name the include");
    other.source = "kernels/missing.cu";
    JT_STATUS(hum_jit_key(&other, k, sizeof k), HUM_ERR_IO);
    JT_CHECK(strstr(hum_last_error(), "kernels/missing.cu"), "message should name the missing source");
    jt_write_file(kdir, "loop_a.cuh", "#include \"loop_b.cuh\"\n");
    jt_write_file(kdir, "loop_b.cuh", "#include \"loop_a.cuh\"\n");
    jt_write_file(kdir, "loop.cu", "#include \"loop_a.cuh\"\n");
    other.source = "kernels/loop.cu";
    JT_OK(hum_jit_key(&other, k, sizeof k)); /* an include cycle is collected once, not followed forever */
    JT_STATUS(hum_jit_key(&req, k, 8), HUM_ERR_INVALID_ARG);

    jt_remove_tree(kdir);
    jt_remove_tree(cache);
    free(kdir);
    free(cache);
    printf("jit_cache_key: ok\n");
    return 0;
}
