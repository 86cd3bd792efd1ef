/* HUM_PTXAS_REPORT: a compile keeps ptxas's report (registers, spills) and the kernel's constants
 * under the cache's logs/, named by the kernel's key, which the report leaves as it is, and names
 * it on stderr with ptxas's lines; kernels from the cache (memory or disk) load without one, and
 * with the variable "0" or unset a compile keeps nothing. */
#define _GNU_SOURCE
#include "cache_memory.h"
#include "jit_support.h"
#include "jit.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void log_path(const char *cache, const hum_jit_request *req, char *out, size_t cap)
{
    char key[33];
    JT_OK(hum_jit_key(req, key, sizeof key));
    snprintf(out, cap, "%s/logs/%s.log", cache, key);
}

/* hum_jit_compile of req with stderr going to `file`; returns where the kernel came from. */
static hum_jit_origin compile_to(const char *cache, const hum_jit_request *req, const char *file)
{
    fflush(stderr);
    const int saved = dup(2), fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    JT_CHECK(saved >= 0 && fd >= 0, "cannot redirect stderr to %s", file);
    dup2(fd, 2);
    close(fd);
    hum_jit_result r;
    hum_status st = hum_jit_compile(cache, req, &r);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    JT_STATUS(st, HUM_OK);
    const hum_jit_origin hit = (hum_jit_origin)r.cache_hit;
    hum_jit_result_free(&r);
    return hit;
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

int main(void)
{
    char *kdir = jt_make_temp_dir("jit-report-kernels"), *cache = jt_make_temp_dir("jit-report-cache");
    setenv("HUM_KERNEL_PATH", kdir, 1);
    jt_write_file(kdir, "sum.cu",
                  "#include \"hum_constants.h\"\n"
                  "extern \"C\" __global__ void sum(const float *x, float *out, int n) {\n"
                  "  float a = 0.f, b = 1.f;\n"
                  "  for (int i = threadIdx.x; i < n; i += blockDim.x) { a += x[i]; b *= x[i] + kAdd; }\n"
                  "  out[threadIdx.x] = a + b;\n"
                  "}\n");
    jt_write_file(kdir, "other.cu", "extern \"C\" __global__ void other(int *out) { out[0] = 7; }\n");
    jt_write_file(kdir, "third.cu", "extern \"C\" __global__ void third(int *out) { out[0] = 9; }\n");
    char err[4200];
    snprintf(err, sizeof err, "%s/stderr.txt", cache);

    hum_jit_request req = {.source = "kernels/sum.cu",
                           .constants = "constexpr float kAdd = 2.f;  // the probe's tile\n",
                           .kernel_name = "sum",
                           .arch = "sm_90a"};
    char key_before[33], path[4096];
    JT_OK(hum_jit_key(&req, key_before, sizeof key_before));
    log_path(cache, &req, path, sizeof path);

    setenv("HUM_PTXAS_REPORT", "1", 1);
    JT_CHECK(compile_to(cache, &req, err) == HUM_JIT_MISS, "the first compile should miss the cache");
    hum_jit_result r;
    JT_OK(hum_jit_compile(cache, &req, &r)); /* from memory now: the key and the cubin */
    JT_CHECK(strcmp(r.key, key_before) == 0, "the report changed the key: %s, expected %s", r.key, key_before);
    JT_CHECK(jt_cubin_is_for(r.cubin, r.cubin_size, 90), "not an sm_90 cubin");
    hum_jit_result_free(&r);
    char *log = jt_read_file(path, NULL);
    JT_CHECK(log != NULL, "no report at %s", path);
    if (log) {
        JT_CHECK(strstr(log, "kernel: sum") && strstr(log, "arch: sm_90a") && strstr(log, "--ptxas-options=-v") &&
                     strstr(log, "the probe's tile") && strstr(log, "Used") && strstr(log, "registers") &&
                     strstr(log, "spill"),
                 "the report lacks the kernel, its options, its constants or ptxas's register and spill lines:\n%s",
                 log);
        free(log);
    }
    char *said = jt_read_file(err, NULL);
    JT_CHECK(said && strstr(said, "ptxas report of kernels/sum.cu (kernel 'sum') for sm_90a: ") && strstr(said, path) &&
                 strstr(said, "\n  ptxas") && strstr(said, "registers"),
             "stderr should name the report and give ptxas's register line:\n%s", said ? said : "(nothing)");
    free(said);

    /* from the disk cache (memory cleared, as a fresh process): loaded as it is, no report */
    remove(path);
    hum_memory_cache_clear();
    JT_CHECK(compile_to(cache, &req, err) == HUM_JIT_HIT_DISK, "the second compile should come from the disk");
    JT_CHECK(!exists(path), "a cache hit wrote a report");
    said = jt_read_file(err, NULL);
    JT_CHECK(said && !strstr(said, "ptxas report"), "a cache hit printed a report:\n%s", said ? said : "");
    free(said);

    /* "0" and unset: nothing kept, nothing said */
    hum_jit_request other = {.source = "kernels/other.cu", .kernel_name = "other", .arch = "sm_80"};
    hum_jit_request third = {.source = "kernels/third.cu", .kernel_name = "third", .arch = "sm_80"};
    char other_path[4096], third_path[4096];
    log_path(cache, &other, other_path, sizeof other_path);
    log_path(cache, &third, third_path, sizeof third_path);
    setenv("HUM_PTXAS_REPORT", "0", 1);
    JT_CHECK(compile_to(cache, &other, err) == HUM_JIT_MISS, "other.cu should compile");
    JT_CHECK(!exists(other_path), "HUM_PTXAS_REPORT=0 kept a report");
    unsetenv("HUM_PTXAS_REPORT");
    JT_CHECK(compile_to(cache, &third, err) == HUM_JIT_MISS, "third.cu should compile");
    JT_CHECK(!exists(third_path), "HUM_PTXAS_REPORT unset kept a report");
    said = jt_read_file(err, NULL);
    JT_CHECK(said && !strstr(said, "ptxas report"), "a compile without the variable printed a report:\n%s",
             said ? said : "");
    free(said);

    jt_remove_tree(kdir);
    jt_remove_tree(cache);
    free(kdir);
    free(cache);
    printf("jit_ptxas_report: ok\n");
    return 0;
}
