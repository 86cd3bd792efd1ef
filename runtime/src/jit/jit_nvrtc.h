/* One NVRTC compilation: options, the CUDA include directory, source + in-memory headers to cubin. */
#ifndef HUM_JIT_NVRTC_H
#define HUM_JIT_NVRTC_H

#include "jit_source.h"

enum { HUM_NVRTC_MAX_OPTIONS = 10 }; /* 7 at most today, then the report's -v */

typedef struct hum_nvrtc_options {
    int32_t count;
    const char *list[HUM_NVRTC_MAX_OPTIONS]; /* point into storage or at static strings */
    char arch_option[64];
    int32_t has_cuda_include; /* 0: no CUDA include directory was found (toolkit headers will fail) */
    int32_t ptxas_report;     /* 1: ptxas reports (-v), and a compile returns the log (hum_nvrtc_compile) */
} hum_nvrtc_options;

/* The options for `req` (whose arch has been checked): C++17, the arch, -default-device,
 * --no-cache from NVRTC 12.9 on (its own compile cache off: hum's is the one), --use_fast_math
 * when asked, and -I for the CUDA include directory and its cccl/ subdirectory,
 * found once per process: $CUDA_HOME/include, $CUDA_PATH/include, the include directory next to
 * the NVRTC library, /usr/local/cuda/include (the first that has cuda_fp16.h). */
void hum_nvrtc_options_make(const hum_jit_request *req, hum_nvrtc_options *out);

/* Adds ptxas's report (--ptxas-options=-v: registers, spills, warnings per function) to opts; it
 * changes no code (the cubin's ELF note records the option), so callers add it after the cache key
 * is made from opts. */
void hum_nvrtc_options_report(hum_nvrtc_options *opts);

/* Compiles `src` and returns the cubin (malloc'ed) and the lowered name of req->kernel_name.
 * On an NVRTC error: HUM_ERR_COMPILE with the program log in *log (malloc'ed, NUL-terminated;
 * the caller saves it and frees it); with opts->ptxas_report, a successful compile's log too. */
hum_status hum_nvrtc_compile(const hum_jit_sources *src, const hum_jit_request *req, const hum_nvrtc_options *opts,
                             void **cubin, size_t *cubin_size, char *lowered, size_t lowered_cap, char **log);

#endif
