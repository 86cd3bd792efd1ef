#include "jit_nvrtc.h"

#include "internal.h"

#include <dlfcn.h>
#include <limits.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static char include_option[PATH_MAX + 3];
static char cccl_option[PATH_MAX + 8];
static int nvrtc_caches; /* NVRTC 12.9+: it has a compile cache of its own, which hum turns off */

/* Sets the include options when `dir` holds the toolkit's half-precision header. */
static int try_include_dir(const char *dir)
{
    char probe[PATH_MAX], real[PATH_MAX];
    if (snprintf(probe, sizeof probe, "%s/cuda_fp16.h", dir) >= (int)sizeof probe || access(probe, R_OK) != 0 ||
        !realpath(dir, real))
        return 0;
    snprintf(include_option, sizeof include_option, "-I%s", real);
    /* CUDA 13 moved libcu++ (which cuda_fp16.h and friends include) under include/cccl. */
    if (snprintf(probe, sizeof probe, "%s/cccl", real) < (int)sizeof probe && access(probe, R_OK) == 0)
        snprintf(cccl_option, sizeof cccl_option, "-I%s", probe);
    return 1;
}

static void find_include_dir(void)
{
    char dir[PATH_MAX];
    static const char *const env_vars[] = {"CUDA_HOME", "CUDA_PATH"};
    for (size_t i = 0; i < sizeof env_vars / sizeof env_vars[0]; i++) {
        const char *root = getenv(env_vars[i]);
        if (root && *root && snprintf(dir, sizeof dir, "%s/include", root) < (int)sizeof dir && try_include_dir(dir))
            return;
    }
    Dl_info info;
    if (dladdr((void *)nvrtcVersion, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash && snprintf(dir, sizeof dir, "%.*s/../include", (int)(slash - info.dli_fname), info.dli_fname) <
                         (int)sizeof dir &&
            try_include_dir(dir))
            return;
    }
    try_include_dir("/usr/local/cuda/include");
}

static void setup(void)
{
    find_include_dir();
    int major = 0, minor = 0;
    nvrtc_caches = nvrtcVersion(&major, &minor) == NVRTC_SUCCESS && (major > 12 || (major == 12 && minor >= 9));
}

void hum_nvrtc_options_make(const hum_jit_request *req, hum_nvrtc_options *out)
{
    pthread_once(&setup_once, setup);
    memset(out, 0, sizeof *out);
    snprintf(out->arch_option, sizeof out->arch_option, "--gpu-architecture=%s", req->arch);
    out->list[out->count++] = out->arch_option;
    out->list[out->count++] = "-std=c++17";
    out->list[out->count++] = "-default-device";
    /* NVRTC 12.9+ keeps compiles in the CUDA driver's compute cache (where a driver loads: it
     * dlopens libcuda and initialises CUDA itself, even in `hum compile`). hum's own cache
     * (jit.c) holds every cubin already; the second one turned cold prepares on the H200 into
     * its hits (NVVM 5 ms, ptxas 0 ms for a kernel that takes 0.8 s), finished concurrent hits
     * one after another, and fills a cache other CUDA programs share (bench/NOTES.md, session
     * 12). The option changes no code: the cubins are the same bytes. */
    if (nvrtc_caches)
        out->list[out->count++] = "--no-cache";
    if (req->fast_math)
        out->list[out->count++] = "--use_fast_math";
    out->has_cuda_include = include_option[0] != '\0';
    if (out->has_cuda_include)
        out->list[out->count++] = include_option;
    if (cccl_option[0])
        out->list[out->count++] = cccl_option;
}

void hum_nvrtc_options_report(hum_nvrtc_options *opts)
{
    _Static_assert(HUM_NVRTC_MAX_OPTIONS >= 8, "room for hum_nvrtc_options_make's 7 options and the report's");
    if (opts->ptxas_report)
        return;
    opts->list[opts->count++] = "--ptxas-options=-v";
    opts->ptxas_report = 1;
}

static hum_status nvrtc_failed(nvrtcResult r, const char *call)
{
    return hum_fail(r == NVRTC_ERROR_OUT_OF_MEMORY ? HUM_ERR_OUT_OF_MEMORY : HUM_ERR_COMPILE, "%s: %s", call,
                    nvrtcGetErrorString(r));
}

static char *program_log(nvrtcProgram prog)
{
    size_t size = 0;
    if (nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS)
        return NULL;
    char *log = malloc(size + 1);
    if (log && nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
        log[0] = '\0';
    if (log)
        log[size] = '\0';
    return log;
}

hum_status hum_nvrtc_compile(const hum_jit_sources *src, const hum_jit_request *req, const hum_nvrtc_options *opts,
                             void **cubin, size_t *cubin_size, char *lowered, size_t lowered_cap, char **log)
{
    *cubin = NULL;
    *cubin_size = 0;
    *log = NULL;
    nvrtcProgram prog;
    nvrtcResult r = nvrtcCreateProgram(&prog, src->source.data, req->source, src->header_count, src->header_texts,
                                       src->header_names);
    if (r != NVRTC_SUCCESS)
        return nvrtc_failed(r, "nvrtcCreateProgram");
    hum_status st = HUM_OK;
    if ((r = nvrtcAddNameExpression(prog, req->kernel_name)) != NVRTC_SUCCESS) {
        st = nvrtc_failed(r, "nvrtcAddNameExpression");
        goto done;
    }
    if ((r = nvrtcCompileProgram(prog, opts->count, opts->list)) != NVRTC_SUCCESS) {
        *log = program_log(prog);
        st = nvrtc_failed(r, "nvrtcCompileProgram");
        goto done;
    }
    const char *name = NULL;
    if ((r = nvrtcGetLoweredName(prog, req->kernel_name, &name)) != NVRTC_SUCCESS) {
        st = nvrtc_failed(r, "nvrtcGetLoweredName");
        goto done;
    }
    if (strlen(name) >= lowered_cap) {
        st = hum_fail(HUM_ERR_UNSUPPORTED, "kernel '%s' lowers to a %zu-character symbol; hum holds at most %zu",
                      req->kernel_name, strlen(name), lowered_cap - 1);
        goto done;
    }
    memcpy(lowered, name, strlen(name) + 1);
    size_t size = 0;
    if ((r = nvrtcGetCUBINSize(prog, &size)) != NVRTC_SUCCESS || size == 0) {
        st = r != NVRTC_SUCCESS ? nvrtc_failed(r, "nvrtcGetCUBINSize")
                                : hum_fail(HUM_ERR_COMPILE, "NVRTC produced an empty cubin for %s", req->arch);
        goto done;
    }
    void *bin = malloc(size);
    if (!bin) {
        st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "cubin of %zu bytes: out of memory", size);
        goto done;
    }
    if ((r = nvrtcGetCUBIN(prog, bin)) != NVRTC_SUCCESS) {
        free(bin);
        st = nvrtc_failed(r, "nvrtcGetCUBIN");
        goto done;
    }
    *cubin = bin;
    *cubin_size = size;
    if (opts->ptxas_report)
        *log = program_log(prog);
done:
    nvrtcDestroyProgram(&prog);
    return st;
}
