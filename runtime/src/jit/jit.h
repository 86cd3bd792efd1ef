/* hum_jit_compile: NVRTC behind the memory and disk kernel caches. For libhum (layers, the
 * self-check) and the tests; tools get compiled kernels through hum_selfcheck_compile and
 * hum_layer_compile (hum/hum_tools.h). */
#ifndef HUM_JIT_H
#define HUM_JIT_H

#include "hum/hum_tools.h"

/*
 * A kernel to compile. The source is read from kernels/ (embedded in libhum; HUM_KERNEL_PATH
 * overrides it). `#include "x.cuh"` in the source or in a header it includes names kernels/x.cuh
 * (read the same way, recursively); `#include "hum_constants.h"` names `constants`;
 * `#include <cuda_fp16.h>` and other toolkit headers come from the CUDA include directory
 * ($CUDA_HOME/include, $CUDA_PATH/include, next to the NVRTC library, /usr/local/cuda/include;
 * with its cccl/ subdirectory). Options: -std=c++17 --gpu-architecture=<arch> -default-device,
 * --no-cache from NVRTC 12.9 on (NVRTC's own compile cache, in the driver's compute cache, off),
 * and --use_fast_math when fast_math is set.
 */
typedef struct hum_jit_request {
    const char *source;      /* e.g. "kernels/gemm/gemm_mma.cu" */
    const char *constants;   /* text of the generated header "hum_constants.h", or NULL */
    const char *kernel_name; /* name expression: "hum_gemm<128, 4>" or an extern "C" name */
    const char *arch;        /* e.g. "sm_90a" */
    int32_t fast_math;       /* nonzero: --use_fast_math */
    int64_t cost;            /* how long NVRTC takes, relatively (0: unknown); orders hum_jit_compile_many's
                              * starts only, so it is no part of the cache key */
} hum_jit_request;

/*
 * Compiles req to a cubin through the kernel cache in `cache_dir` (NULL: hum_cache_default_dir).
 * The key is XXH3-128 over the NVRTC version, the options, the source and the full text of every
 * header it includes (contents, never modification times), the constants, the kernel name and
 * the arch. Entries (<cache_dir>/kernels/<key>.hum) are written to a temp file and renamed, under
 * an flock of <cache_dir>/locks/<key>.lock, so concurrent processes compile a kernel once and
 * leave one entry; each entry carries XXH3-64 checksums, and a corrupt or truncated entry is
 * recompiled, never loaded. A process-wide memory cache sits in front; it keeps every cubin the
 * process compiled or read (tens to hundreds of KiB each) until exit. Thread-safe. The disk
 * cache is best-effort: when it cannot be created, locked or written, a warning goes to stderr
 * and the compiled cubin is returned (cached in memory only).
 * Errors: HUM_ERR_INVALID_ARG (missing field, bad arch, an include of hum_constants.h without
 * constants, an include climbing out of kernels/); HUM_ERR_IO (source not found, no cache
 * directory at all); HUM_ERR_COMPILE (NVRTC rejected it: the message quotes the first error and names
 * the saved log, <cache_dir>/logs/<key>.log). On failure *out is zeroed.
 */
hum_status hum_jit_compile(const char *cache_dir, const hum_jit_request *req, hum_jit_result *out);
/* Compiles reqs[0..count) in parallel on `threads` threads (<= 0: min(count, usable CPUs)),
 * starting the costliest first (`cost`, ties in request order): with fewer threads than requests
 * the longest compile then never starts last; out[i] answers reqs[i]. If any fails: that status,
 * a message starting "request i of count (source, kernel, arch): ", and every out[] zeroed. */
hum_status hum_jit_compile_many(const char *cache_dir, const hum_jit_request *reqs, int32_t count,
                                hum_jit_result *out, int32_t threads);

/* The cache key req would compile under, without compiling (cap >= 33). */
hum_status hum_jit_key(const hum_jit_request *req, char *out, size_t cap);

#endif
