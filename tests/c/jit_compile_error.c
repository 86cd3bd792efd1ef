/* NVRTC errors come back as HUM_ERR_COMPILE naming a saved log that holds NVRTC's own text;
 * bad requests are refused before NVRTC runs. */
#define _GNU_SOURCE
#include "jit_support.h"
#include "jit.h"

#include <string.h>

int main(void)
{
    char *kdir = jt_make_temp_dir("jit-error-kernels"), *cache = jt_make_temp_dir("jit-error-cache");
    setenv("HUM_KERNEL_PATH", kdir, 1);
    jt_write_file(kdir, "broken.cu",
                  "#include \"helper.cuh\"\n"
                  "extern \"C\" __global__ void broken(int *out) { out[0] = helper() + hum_no_such_symbol; }\n");
    jt_write_file(kdir, "helper.cuh", "#pragma once\n__device__ int helper() { return 1; }\n");

    hum_jit_request req = {.source = "kernels/broken.cu", .kernel_name = "broken", .arch = "sm_90a"};
    hum_jit_result r;
    memset(&r, 0x5a, sizeof r);
    JT_STATUS(hum_jit_compile(cache, &req, &r), HUM_ERR_COMPILE);
    JT_CHECK(r.cubin == NULL && r.cubin_size == 0, "a failed compile left a result behind");
    const char *msg = hum_last_error();
    JT_CHECK(strstr(msg, "kernels/broken.cu") && strstr(msg, "sm_90a") && strstr(msg, "hum_no_such_symbol"),
             "the message should name the source, the arch and the first error: %s", msg);
    /* NVRTC's log says kernels/broken.cu: the message names the files it really read */
    char origin[4200];
    snprintf(origin, sizeof origin, "HUM_KERNEL_PATH: %s/broken.cu, %s/helper.cuh", kdir, kdir);
    JT_CHECK(strstr(msg, origin) != NULL, "the message should name the override files (%s): %s", origin, msg);

    char key[33], log_path[4096];
    JT_OK(hum_jit_key(&req, key, sizeof key));
    snprintf(log_path, sizeof log_path, "%s/logs/%s.log", cache, key);
    JT_STATUS(hum_jit_compile(cache, &req, &r), HUM_ERR_COMPILE);
    msg = hum_last_error();
    JT_CHECK(strstr(msg, log_path) != NULL, "the message does not name the log %s: %s", log_path, msg);
    char *log = jt_read_file(log_path, NULL);
    JT_CHECK(log != NULL, "no log at %s", log_path);
    JT_CHECK(strstr(log, "error") && strstr(log, "hum_no_such_symbol") && strstr(log, "kernels/broken.cu") &&
                 strstr(log, "--gpu-architecture=sm_90a"),
             "the log lacks NVRTC's error text or the options:\n%s", log);
    /* NVRTC 12.9+ would keep compiles in a cache of its own too; hum's is the one */
    int32_t major = 0, minor = -1;
    JT_OK(hum_nvrtc_version(&major, &minor));
    const int caches = major > 12 || (major == 12 && minor >= 9);
    JT_CHECK(caches == (strstr(log, " --no-cache") != NULL), "NVRTC %d.%d: --no-cache %s in the options:\n%s",
             major, minor, caches ? "missing" : "passed", log);
    free(log);
    char kernels[4096];
    snprintf(kernels, sizeof kernels, "%s/kernels", cache);
    JT_CHECK(jt_count_files(kernels, "") == 0, "a failed compile left %d files in kernels/",
             jt_count_files(kernels, ""));

    /* A name expression that names nothing in the source is NVRTC's error too. */
    jt_write_file(kdir, "fine.cu", "template <int N> __global__ void fine(int *out) { out[0] = N; }\n");
    hum_jit_request unnamed = {.source = "kernels/fine.cu", .kernel_name = "missing<1>", .arch = "sm_80"};
    JT_STATUS(hum_jit_compile(cache, &unnamed, &r), HUM_ERR_COMPILE);
    JT_CHECK(strstr(hum_last_error(), "/logs/"), "no log named: %s", hum_last_error());
    unnamed.kernel_name = "fine<7>";
    JT_OK(hum_jit_compile(cache, &unnamed, &r));
    JT_CHECK(strcmp(r.lowered_name, "_Z4fineILi7EEvPi") == 0, "lowered name %s", r.lowered_name);
    JT_CHECK(jt_cubin_is_for(r.cubin, r.cubin_size, 80), "not an sm_80 cubin");
    hum_jit_result_free(&r);

    /* Architectures: NVRTC's names, the "a" suffix from sm_90 on, nothing older than sm_75. */
    static const char *const good[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90a"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        JT_OK(hum_arch_check(good[i]));
    static const char *const bad[] = {"sm_90", "sm_70", "sm_91a", "compute_90a", "sm_80a", "90", "", "sm_90a "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        JT_STATUS(hum_arch_check(bad[i]), HUM_ERR_INVALID_ARG);
        JT_CHECK(strstr(hum_last_error(), "sm_90a") && strstr(hum_last_error(), "sm_75"),
                 "the message for '%s' should list the accepted names: %s", bad[i], hum_last_error());
        req.arch = bad[i];
        JT_STATUS(hum_jit_compile(cache, &req, &r), HUM_ERR_INVALID_ARG);
    }
    JT_STATUS(hum_arch_check("sm_90"), HUM_ERR_INVALID_ARG);
    JT_CHECK(strstr(hum_last_error(), "'a' suffix"), "no hint about the suffix: %s", hum_last_error());
    /* the hint only where the suffix is what is missing */
    static const char *const no_hint[] = {"sm_90a;rm", "sm_90a,sm_80", "sm_9999", "sm_91", "sm_90b"};
    for (size_t i = 0; i < sizeof no_hint / sizeof no_hint[0]; i++) {
        JT_STATUS(hum_arch_check(no_hint[i]), HUM_ERR_INVALID_ARG);
        JT_CHECK(!strstr(hum_last_error(), "'a' suffix"), "a suffix hint for '%s': %s", no_hint[i], hum_last_error());
    }
    JT_STATUS(hum_arch_check(NULL), HUM_ERR_INVALID_ARG);

    hum_device_info h200 = {.name = "NVIDIA H200", .sm_major = 9, .sm_minor = 0};
    hum_device_info a10 = {.name = "NVIDIA A10", .sm_major = 8, .sm_minor = 6};
    char arch[16];
    JT_OK(hum_arch_for_device(&h200, arch, sizeof arch));
    JT_CHECK(strcmp(arch, "sm_90a") == 0, "H200 maps to %s", arch);
    JT_OK(hum_arch_for_device(&a10, arch, sizeof arch));
    JT_CHECK(strcmp(arch, "sm_86") == 0, "A10 maps to %s", arch);
    JT_STATUS(hum_arch_for_device(&h200, arch, 6), HUM_ERR_INVALID_ARG);

    /* Requests missing a field. */
    hum_jit_request empty = {0};
    JT_STATUS(hum_jit_compile(cache, &empty, &r), HUM_ERR_INVALID_ARG);
    JT_STATUS(hum_jit_compile(cache, NULL, &r), HUM_ERR_INVALID_ARG);
    hum_jit_request no_name = {.source = "kernels/fine.cu", .arch = "sm_80"};
    JT_STATUS(hum_jit_compile(cache, &no_name, &r), HUM_ERR_INVALID_ARG);
    JT_CHECK(strstr(hum_last_error(), "kernel_name"), "message: %s", hum_last_error());

    /* A log that cannot be saved: the message still reads whole, with both the compile error
     * and why the save failed (the save's message is copied before the new one is formatted
     * over the same thread-local buffer). A directory where the log goes makes the rename fail. */
    req.arch = "sm_90a";
    char *cache2 = jt_make_temp_dir("jit-error-nolog");
    char nolog[4096];
    snprintf(nolog, sizeof nolog, "logs/%s.log/keep", key);
    jt_write_file(cache2, nolog, "");
    JT_STATUS(hum_jit_compile(cache2, &req, &r), HUM_ERR_COMPILE);
    msg = hum_last_error();
    const char *head = "compiling kernels/broken.cu (kernel 'broken') for sm_90a failed: ";
    JT_CHECK(strncmp(msg, head, strlen(head)) == 0 &&
                 strstr(msg, "hum_no_such_symbol") &&
                 strstr(msg, "; the NVRTC log could not be saved (cannot rename ") && strstr(msg, "Is a directory)"),
             "garbled message: %s", msg);
    jt_remove_tree(cache2);
    free(cache2);

    /* A cache directory that cannot be created does not stop the compile (jit_cache_unwritable
     * tests the success); an NVRTC error is still reported, and the message says why its log
     * was not kept. */
    char blocked[4096];
    jt_write_file(cache, "file", "not a directory\n");
    snprintf(blocked, sizeof blocked, "%s/file/cache", cache);
    JT_STATUS(hum_jit_compile(blocked, &req, &r), HUM_ERR_COMPILE);
    msg = hum_last_error();
    JT_CHECK(strstr(msg, "hum_no_such_symbol") && strstr(msg, "could not be saved (") && strstr(msg, blocked),
             "message does not give the error and name %s: %s", blocked, msg);

    JT_CHECK(major >= 12 && minor >= 0, "NVRTC version %d.%d", major, minor);

    jt_remove_tree(kdir);
    jt_remove_tree(cache);
    free(kdir);
    free(cache);
    printf("jit_compile_error: ok\n");
    return 0;
}
