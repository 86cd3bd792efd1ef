/* HUM_PTXAS_REPORT: a compile keeps ptxas's report (registers, spills) under the cache's logs/,
 * named by the kernel's key, which the report leaves as it is; cached kernels load without one,
 * and with the variable "0" a compile keeps nothing. */
#define _GNU_SOURCE
#include "jit_support.h"
#include "jit.h"

#include <stdlib.h>
#include <string.h>

static void log_path(const char *cache, const hum_jit_request *req, char *out, size_t cap)
{
    char key[33];
    JT_OK(hum_jit_key(req, key, sizeof key));
    snprintf(out, cap, "%s/logs/%s.log", cache, key);
}

int main(void)
{
    char *kdir = jt_make_temp_dir("jit-report-kernels"), *cache = jt_make_temp_dir("jit-report-cache");
    setenv("HUM_KERNEL_PATH", kdir, 1);
    jt_write_file(kdir, "sum.cu",
                  "extern \"C\" __global__ void sum(const float *x, float *out, int n) {\n"
                  "  float a = 0.f, b = 1.f;\n"
                  "  for (int i = threadIdx.x; i < n; i += blockDim.x) { a += x[i]; b *= x[i] + 2.f; }\n"
                  "  out[threadIdx.x] = a + b;\n"
                  "}\n");
    jt_write_file(kdir, "other.cu", "extern \"C\" __global__ void other(int *out) { out[0] = 7; }\n");

    hum_jit_request req = {.source = "kernels/sum.cu", .kernel_name = "sum", .arch = "sm_90a"};
    char key_before[33], path[4096];
    JT_OK(hum_jit_key(&req, key_before, sizeof key_before));
    log_path(cache, &req, path, sizeof path);

    setenv("HUM_PTXAS_REPORT", "1", 1);
    hum_jit_result r;
    JT_OK(hum_jit_compile(cache, &req, &r));
    JT_CHECK(r.cache_hit == HUM_JIT_MISS, "the first compile should miss the cache");
    JT_CHECK(strcmp(r.key, key_before) == 0, "the report changed the key: %s, expected %s", r.key, key_before);
    JT_CHECK(jt_cubin_is_for(r.cubin, r.cubin_size, 90), "not an sm_90 cubin");
    hum_jit_result_free(&r);
    char *log = jt_read_file(path, NULL);
    JT_CHECK(log != NULL, "no report at %s", path);
    if (log) {
        JT_CHECK(strstr(log, "kernel: sum") && strstr(log, "arch: sm_90a") && strstr(log, "--ptxas-options=-v") &&
                     strstr(log, "Used") && strstr(log, "registers") && strstr(log, "spill"),
                 "the report lacks the kernel, its options or ptxas's register and spill lines:\n%s", log);
        free(log);
    }

    /* from the cache: loaded as it is, the report of its compile still there */
    remove(path);
    JT_OK(hum_jit_compile(cache, &req, &r));
    JT_CHECK(r.cache_hit != HUM_JIT_MISS, "the second compile should hit the cache");
    hum_jit_result_free(&r);
    char *again = jt_read_file(path, NULL);
    JT_CHECK(again == NULL, "a cache hit wrote a report");
    free(again);

    /* "0" and unset: nothing kept */
    hum_jit_request other = {.source = "kernels/other.cu", .kernel_name = "other", .arch = "sm_80"};
    char other_path[4096];
    log_path(cache, &other, other_path, sizeof other_path);
    setenv("HUM_PTXAS_REPORT", "0", 1);
    JT_OK(hum_jit_compile(cache, &other, &r));
    JT_CHECK(r.cache_hit == HUM_JIT_MISS, "other.cu should compile");
    hum_jit_result_free(&r);
    char *none = jt_read_file(other_path, NULL);
    JT_CHECK(none == NULL, "HUM_PTXAS_REPORT=0 kept a report");
    free(none);

    jt_remove_tree(kdir);
    jt_remove_tree(cache);
    free(kdir);
    free(cache);
    printf("jit_ptxas_report: ok\n");
    return 0;
}
