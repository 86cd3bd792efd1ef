/*
 * hum.h: what a host calls to run quantized LLM GEMMs with hum, in the order it calls it:
 * create a runtime, hand it a quantized weight, prepare the layer, run forwards, destroy.
 * hum/hum_tools.h adds the tools hum is built from (dtype conversions, bit packing, the
 * reference dequantizer and quantizer, safetensors and checkpoints, the kernel cache), for
 * tests, the `hum` command line and hosts that need them.
 *
 * Conventions that hold for every function below:
 *  - Every call returns hum_status (HUM_OK == 0). On failure, hum_last_error() returns a
 *    thread-local message naming the thing at fault (file, tensor, key) and what was expected.
 *  - No call aborts or exits on bad input; a failed call leaves no partial state behind.
 *  - Shapes are in elements. Matrices are row-major unless a stride says otherwise.
 *    GEMM naming: C[M, N] = A[M, K] * W[N, K]^T (+ bias[N]).
 *  - A call's outputs never overlap its inputs (no function here works in place): packing into
 *    the values' own buffer, or concatenating into one of the parts, gives undefined results.
 *
 * This header is also fed to the LuaJIT FFI (ffi.cdef) after the C preprocessor has run over
 * it with HUM_CDEF defined; keep every declaration plain C (no macros that carry values: use
 * enums for constants).
 */
#ifndef HUM_H
#define HUM_H

#ifndef HUM_CDEF
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
#endif

/* ====================================================================================== */
/* Status and errors                                                                       */
/* ====================================================================================== */

typedef enum hum_status {
    HUM_OK = 0,
    HUM_ERR_INVALID_ARG = 1, /* a NULL pointer, a bad enum value, a shape that does not fit */
    HUM_ERR_NO_DEVICE = 2,   /* no CUDA driver, or no GPU */
    HUM_ERR_CUDA = 3,        /* a CUDA driver call failed (the message names it and its error) */
    HUM_ERR_COMPILE = 4,     /* NVRTC rejected a kernel; the message names the saved log file */
    HUM_ERR_IO = 5,          /* a file could not be read or written */
    HUM_ERR_FORMAT = 6,      /* a malformed file or checkpoint (safetensors, config.json, ...) */
    HUM_ERR_UNSUPPORTED = 7, /* a valid request this runtime does not support (names the combination) */
    HUM_ERR_CONFIG = 8,      /* a bad deployment config (YAML): names the key and its line */
    HUM_ERR_POLICY = 9,      /* a policy or Lua script failed: names file:line */
    HUM_ERR_OUT_OF_MEMORY = 10,
    HUM_ERR_INTERNAL = 11
} hum_status;

/* The two objects a host holds: the runtime (device, kernel cache, Lua state, policies) and
 * a prepared quantized layer. Both are opaque. */
typedef struct hum_runtime hum_runtime;
typedef struct hum_layer hum_layer;
typedef struct hum_workspace hum_workspace;

/* Thread-local message of the last failed call on this thread; "" if none. Never NULL. */
const char *hum_last_error(void);
/* Static name of a status code, e.g. "HUM_ERR_FORMAT". */
const char *hum_status_name(hum_status status);
/* Library version string, e.g. "0.1.0". */
const char *hum_version(void);

/* ====================================================================================== */
/* CUDA driver and devices                                                                 */
/* ====================================================================================== */
/* HUM-SECTION device */
/*
 * The CUDA driver is loaded at run time (libcuda.so.1, or the file the environment variable
 * HUM_CUDA_DRIVER names, read once at the first device call); libhum never links it. Without a
 * usable driver every call that needs the GPU (hum_layer_prepare, hum_layer_forward, the
 * device memory calls of hum_tools.h) returns HUM_ERR_NO_DEVICE with "no CUDA driver" in the
 * message, and with a driver but no device, "no GPU"; everything CPU-side (NVRTC compilation
 * included) keeps working. hum needs a CUDA 12.0 or newer driver.
 * Device work runs in each device's primary context: retained on first use, released at process
 * exit, and made current on the calling thread whenever hum allocates, copies, loads or launches.
 */
struct CUstream_st; /* CUstream of <cuda.h>: streams belong to the host and pass through as they are */

typedef struct hum_device_info {
    char name[256];                   /* e.g. "NVIDIA H200" */
    int32_t ordinal;                  /* CUDA device ordinal */
    int32_t sm_major, sm_minor;       /* compute capability, e.g. 9 and 0 */
    int32_t sm_count;                 /* streaming multiprocessors */
    int64_t max_smem_per_block_optin; /* bytes of shared memory a block may opt in to */
    int64_t l2_bytes;                 /* L2 cache, bytes */
    int64_t total_memory_bytes;       /* device memory, bytes */
    int32_t driver_version;           /* CUDA version of the driver: 1000 * major + 10 * minor */
} hum_device_info;

/* The GPUs a host may pick for hum_runtime_options.device_ordinal: their number, >= 1;
 * HUM_ERR_NO_DEVICE with *count = 0 when there is none. */
hum_status hum_device_count(int32_t *count);
/* Properties of device `ordinal`. HUM_ERR_NO_DEVICE; HUM_ERR_INVALID_ARG for an ordinal out of
 * range (the message gives the valid range); HUM_ERR_CUDA if the driver fails a query. */
hum_status hum_device_query(int32_t ordinal, hum_device_info *out);

/* ====================================================================================== */
/* Runtime, deployment config, policies                                                   */
/* ====================================================================================== */
/* HUM-SECTION runtime */
/*
 * A hum_runtime holds what every layer shares: the deployment config (YAML, docs/config.md),
 * one device (optional: without a driver or GPU the runtime still compiles, inspects and runs
 * the CPU references), the kernel cache directory, and one LuaJIT state that runs the
 * decisions (policies, checkpoint formats, layer preparation) under a lock. It is entered at
 * create, prepare and reload time only; hum_layer_forward never touches it.
 * Threads: any thread may use a runtime; Lua work is serialised by its lock. Destroy the
 * runtime after every layer made from it, and not while another thread uses it.
 */

typedef struct hum_runtime_options {
    /* Deployment config file; NULL: $HUM_CONFIG when set and non-empty, else none (defaults). */
    const char *config_path;
    /* CUDA device ordinal; -1: the config's `device`, default 0. A zeroed struct means device 0:
     * use hum_runtime_options_init to start from -1. */
    int32_t device_ordinal;
    /* Kernel cache directory; NULL: the config's `cache_dir`, then $HUM_CACHE_DIR,
     * $XDG_CACHE_HOME/hum, ~/.cache/hum (hum_cache_default_dir). */
    const char *cache_dir;
} hum_runtime_options;

/* Fills `opts` with the defaults: no config path, device -1 (from the config), no cache dir. */
void hum_runtime_options_init(hum_runtime_options *opts);

/*
 * Creates a runtime (opts may be NULL: the defaults). Reads the config, finds the device, starts
 * the Lua state and loads the policies: the built-in policy files (HUM_POLICY_PATH directories
 * replace built-in files of the same name), then the config's policy_paths, then its overrides
 * (docs/policies.md). Succeeds without a driver or GPU; hum_runtime_device then says why.
 * Errors: HUM_ERR_INVALID_ARG (out NULL, device_ordinal < -1, an ordinal past the last GPU);
 * HUM_ERR_IO (config or policy file unreadable); HUM_ERR_CONFIG ("file:line: ..." naming the key);
 * HUM_ERR_POLICY (a policy file fails to compile, run or check, or runs past the config's
 * policy_time_limit_ms or policy_memory_limit_mb: "file:line: ..."; never another status,
 * whatever the file raises).
 * On failure *out is NULL and nothing is left allocated.
 */
hum_status hum_runtime_create(const hum_runtime_options *opts, hum_runtime **out);
/* Frees the runtime; NULL is a no-op. */
void hum_runtime_destroy(hum_runtime *rt);

/* The runtime's GPU. HUM_ERR_NO_DEVICE, with the probe's message ("no CUDA driver ..." or
 * "no GPU ..."), when it runs without one. */
hum_status hum_runtime_device(const hum_runtime *rt, hum_device_info *out);
/* The kernel cache directory in use (owned by the runtime). */
const char *hum_runtime_cache_dir(const hum_runtime *rt);
/* The deployment config file read at create, or NULL when none was. */
const char *hum_runtime_config_path(const hum_runtime *rt);

/*
 * Policy files are trusted code: the operator's, run with the host's privileges. They still
 * cannot take the process down or freeze it: each file runs in a sandbox of its own (a fresh
 * global table per file and load, read-only standard libraries, no io, os.exit, os.execute,
 * ffi, debug or load of bytecode), and every call into it (top level, applies, tunings) is
 * stopped after the config's policy_time_limit_ms (default 1000 ms), releasing the Lua lock,
 * or when it would take more than policy_memory_limit_mb (default 256 MiB).
 * Whatever fails inside a policy file (an error of any type, a time-out, a bad table, a hum
 * helper's error) is HUM_ERR_POLICY naming the file and line (docs/policies.md).
 *
 * Re-reads every policy layer, and the config file's overrides (its other keys hold for the
 * runtime's life), then re-plans every prepared layer of the runtime with the new
 * policies (for the activation type its weights were prepared for: a changed activation
 * override applies to layers prepared afterwards), compiles the kernels its new dispatch table
 * needs (in parallel, through the kernel cache: only new variants run NVRTC) and swaps each layer's
 * table in with one atomic pointer store. Forwards running meanwhile, on any thread or stream, are
 * never blocked: each keeps the table it started with, and a replaced table's kernels are unloaded
 * only once no forward holds it and the GPU has run every launch made with it (the call waits for
 * that: it synchronises the device context after the swap, so it must not run while another thread
 * captures a CUDA graph in global capture mode). A CUDA graph captured before the reload holds
 * launches of the replaced kernels: capture it again afterwards. All-or-nothing: when a file is
 * rejected (HUM_ERR_POLICY or HUM_ERR_IO, with file:line; HUM_ERR_CONFIG for the config file) or
 * any layer fails to re-plan, compile or load (HUM_ERR_UNSUPPORTED naming the rule,
 * HUM_ERR_COMPILE, HUM_ERR_CUDA, with the layer's N and K), the policies and every table in force
 * stay exactly as they were. With `hot_reload: true` in the config the runtime does the same by
 * itself when a policy file or directory, or the config file, changes, checked (one stat per file)
 * each time it enters Lua (layer preparation, checkpoint loading) and every 500 ms on a thread of
 * its own. Not from Lua code running on this runtime (HUM_ERR_INTERNAL).
 */
hum_status hum_runtime_reload_policies(hum_runtime *rt);
/* Number of policy files in force, and the origin of file i in layering order (0 first):
 * "embedded:policies/sm90.lua" or a path. NULL when i is out of range. Safe beside a reload on
 * another thread; the strings stay valid until the runtime is destroyed. The runtime keeps one
 * copy of each distinct origin it has loaded, so reloading the same files (by hand or hot)
 * keeps no memory per reload; only new file names add their path once. */
int32_t hum_runtime_policy_count(const hum_runtime *rt);
const char *hum_runtime_policy_origin(const hum_runtime *rt, int32_t i);
/* The name and origin (as hum_runtime_policy_origin gives it) of the policy in force for the
 * nominal device of `arch` ("sm_80"), or with arch NULL for the runtime's GPU, cut to fit
 * name_cap / origin_cap bytes; both "" when no policy applies. HUM_ERR_INVALID_ARG for NULL,
 * a zero capacity or an arch without a nominal device; HUM_ERR_NO_DEVICE for arch NULL without
 * a GPU; HUM_ERR_POLICY when Lua fails. Takes the runtime's Lua lock. */
hum_status hum_runtime_policy_winner(hum_runtime *rt, const char *arch, char *name, size_t name_cap, char *origin,
                                     size_t origin_cap);

/* The config's override for `key` ("moe.activation", "linear.activation"), in its canonical
 * spelling ("e4m3", "mxfp8", ...), or NULL when the config does not set it; as the last policy
 * reload read the file. The strings stay valid until the runtime is destroyed. */
const char *hum_runtime_override(const hum_runtime *rt, const char *key);
/* The config's overrides: key i of hum_runtime_override_count, in the order the config lists
 * them (NULL when i is out of range); hum_runtime_override gives its value. */
int32_t hum_runtime_override_count(const hum_runtime *rt);
const char *hum_runtime_override_key(const hum_runtime *rt, int32_t i);
/* The config's hot_reload (1 or 0) and log_level ("error", "warn", "info" or "debug"); without
 * a config, or for a NULL runtime, the defaults: 0 and "warn". */
int32_t hum_runtime_hot_reload(const hum_runtime *rt);
const char *hum_runtime_log_level(const hum_runtime *rt);

/* ====================================================================================== */
/* Data types                                                                              */
/* ====================================================================================== */

/*
 * A hum_dtype is a 32-bit code that describes any type hum handles, including the generic
 * signed float eXmY (1 sign bit, X exponent bits, Y mantissa bits, total <= 8 for weights):
 *   bits  0..7  total width in bits
 *   bits  8..15 exponent bits (floats; 0 for ints)
 *   bits 16..23 mantissa bits (floats; 0 for ints)
 *   bits 24..27 kind: hum_dtype_kind
 *   bits 28..31 special values: hum_dtype_special
 * Build codes with hum_dtype_make() or use the named values below.
 */
typedef uint32_t hum_dtype;

typedef enum hum_dtype_kind {
    HUM_KIND_INVALID = 0,
    HUM_KIND_UINT = 1,   /* unsigned integer */
    HUM_KIND_INT = 2,    /* two's complement integer */
    HUM_KIND_FLOAT = 3,  /* sign + exponent + mantissa */
    HUM_KIND_UFLOAT = 4  /* exponent only, no sign (float8_e8m0fnu / UE8M0) */
} hum_dtype_kind;

typedef enum hum_dtype_special {
    HUM_SPECIAL_IEEE = 0,   /* all-ones exponent: inf (mantissa 0) and NaN (float16, bfloat16, float32, e5m2) */
    HUM_SPECIAL_FN = 1,     /* no inf; NaN only at all-ones exponent and mantissa (float8_e4m3fn) */
    HUM_SPECIAL_FINITE = 2, /* no inf, no NaN: every code is a number (e2m1, e3m2, e2m3, generic eXmY) */
    HUM_SPECIAL_E8M0 = 3    /* UE8M0: 0xFF is NaN, value 2^(code-127) otherwise */
} hum_dtype_special;

enum {
    HUM_DTYPE_INVALID = 0,
    /* kind << 24 | man << 16 | exp << 8 | bits, special << 28 */
    HUM_DTYPE_UINT1 = (1 << 24) | 1, HUM_DTYPE_UINT2 = (1 << 24) | 2, HUM_DTYPE_UINT3 = (1 << 24) | 3,
    HUM_DTYPE_UINT4 = (1 << 24) | 4, HUM_DTYPE_UINT5 = (1 << 24) | 5, HUM_DTYPE_UINT6 = (1 << 24) | 6,
    HUM_DTYPE_UINT7 = (1 << 24) | 7, HUM_DTYPE_UINT8 = (1 << 24) | 8,
    HUM_DTYPE_UINT16 = (1 << 24) | 16, HUM_DTYPE_UINT32 = (1 << 24) | 32, HUM_DTYPE_UINT64 = (1 << 24) | 64,
    HUM_DTYPE_INT1 = (2 << 24) | 1, HUM_DTYPE_INT2 = (2 << 24) | 2, HUM_DTYPE_INT3 = (2 << 24) | 3,
    HUM_DTYPE_INT4 = (2 << 24) | 4, HUM_DTYPE_INT5 = (2 << 24) | 5, HUM_DTYPE_INT6 = (2 << 24) | 6,
    HUM_DTYPE_INT7 = (2 << 24) | 7, HUM_DTYPE_INT8 = (2 << 24) | 8,
    HUM_DTYPE_INT16 = (2 << 24) | 16, HUM_DTYPE_INT32 = (2 << 24) | 32, HUM_DTYPE_INT64 = (2 << 24) | 64,
    HUM_DTYPE_FLOAT16 = (3 << 24) | (10 << 16) | (5 << 8) | 16,
    HUM_DTYPE_BFLOAT16 = (3 << 24) | (7 << 16) | (8 << 8) | 16,
    HUM_DTYPE_FLOAT32 = (3 << 24) | (23 << 16) | (8 << 8) | 32,
    HUM_DTYPE_FLOAT64 = (3 << 24) | (52 << 16) | (11 << 8) | 64,
    HUM_DTYPE_FLOAT8_E4M3FN = (1 << 28) | (3 << 24) | (3 << 16) | (4 << 8) | 8,
    HUM_DTYPE_FLOAT8_E5M2 = (3 << 24) | (2 << 16) | (5 << 8) | 8,
    HUM_DTYPE_FLOAT8_E8M0 = (3 << 28) | (4 << 24) | (0 << 16) | (8 << 8) | 8,
    HUM_DTYPE_FLOAT4_E2M1 = (2 << 28) | (3 << 24) | (1 << 16) | (2 << 8) | 4,
    HUM_DTYPE_FLOAT6_E3M2 = (2 << 28) | (3 << 24) | (2 << 16) | (3 << 8) | 6,
    HUM_DTYPE_FLOAT6_E2M3 = (2 << 28) | (3 << 24) | (3 << 16) | (2 << 8) | 6
};

/* ====================================================================================== */
/* Tensors                                                                                 */
/* ====================================================================================== */

typedef enum hum_memory { HUM_MEMORY_HOST = 0, HUM_MEMORY_DEVICE = 1 } hum_memory;

enum { HUM_MAX_RANK = 4 };

/*
 * A view of memory the caller owns. strides are in elements; a NULL-equivalent (all zero)
 * strides array means contiguous row-major. Sub-byte data is stored in int32 words and
 * described as HUM_DTYPE_INT32 (the packing is stated by the function that takes it).
 */
typedef struct hum_tensor {
    void *data;
    hum_dtype dtype;
    int32_t rank;
    int64_t shape[4];
    int64_t strides[4];
    hum_memory memory;
} hum_tensor;

/* ====================================================================================== */
/* The standard quantized weight                                                           */
/* ====================================================================================== */
/* HUM-SECTION standard */
/*
 * The standard quantized-weight format: what every checkpoint format is converted to (by
 * formats/<name>.lua) and what layer preparation consumes. All tensors are host memory owned by the
 * struct (free with hum_standard_free). E is present only when num_experts > 0 (MoE); a dense
 * layer omits it. Dequantization rule (the reference every kernel is tested against):
 *   int weight:  w[n][k] = (q[n][k] - z) * s(n, k) * global
 *                z = zero_point(n, k / group) when has_zero_point, else 2^(bits-1) (midpoint)
 *                float zero point: w = (q - zf(n, k/group)) * s
 *   FP weight:   w[n][k] = decode(q[n][k]) * s(n, k) * global  (eXmY read as finite codes)
 *   s(n, k):     CHANNEL: scale[n][0]; GROUP: scale[n][k / group_size];
 *                BLOCK: scale[n / group_size_n][k / group_size]; TENSOR: 1 (global only);
 *                GROUP_TENSOR: scale[n][k / group_size] (and the global scale)
 */
typedef enum hum_scale_type {
    HUM_SCALE_CHANNEL = 0,     /* one scale per output channel n */
    HUM_SCALE_GROUP = 1,       /* one per (n, group of group_size along K) */
    HUM_SCALE_BLOCK = 2,       /* one per (group_size_n x group_size) block; float32 */
    HUM_SCALE_TENSOR = 3,      /* global_scale only */
    HUM_SCALE_GROUP_TENSOR = 4 /* group scale times global_scale (e.g. NVFP4) */
} hum_scale_type;

/* How 8-bit activations get their scales (kernels/prep/quantize_a.cu quantizes 16-bit A so;
 * hum_quantize_activations, hum/hum_tools.h, is its CPU twin). The dequantized activation is
 * code * scale. */
typedef enum hum_act_scale {
    HUM_ACT_SCALE_TOKEN = 0,  /* dynamic: one float32 scale per row (token), amax / max */
    HUM_ACT_SCALE_TENSOR = 1, /* static: one float32 scale for the tensor (a checkpoint's input_scale) */
    HUM_ACT_SCALE_GROUP = 2   /* dynamic: one scale per row and group of K columns (1 x 128 float32
                               * for FP8 block-wise; 1 x 32 e8m0 for MXFP8) */
} hum_act_scale;

/* What a layer rounds 16-bit A through before its 16-bit GEMM (LayerConfig a_round). */
typedef enum hum_a_round {
    HUM_A_ROUND_NONE = 0,
    HUM_A_ROUND_MXFP8 = 1 /* e4m3fn codes times e8m0 scales per 32 columns (OCP MX), in A's type */
} hum_a_round;

typedef struct hum_standard_weight {
    int64_t num_experts;    /* 0 for a dense layer */
    int64_t n, k;           /* logical output and input features (unpadded): A is [M, K] */
    hum_dtype weight_dtype; /* HUM_DTYPE_UINT1..UINT8 (offset binary, see above) or an FP eXmY code */
    hum_dtype param_dtype;  /* float16 or bfloat16: the checkpoint's compute dtype (bias, 16-bit scales) */
    /* The stored columns: K' = K, or the length of k_perm's rows when it has padding columns
     * (below); weight, scales and zero points are laid out over K' ("K" in their shapes). */
    /* weight: int32 ([E,] N, ceil(K*bits/32)), LSB-first bit stream along K per row n:
     * value k of a row occupies bits [k*bits, (k+1)*bits) of the row's words, straddling words
     * with its low part in the lower word. */
    hum_tensor weight;
    hum_scale_type scale_type;
    int64_t group_size;     /* K extent of one scale (GROUP, GROUP_TENSOR, BLOCK); 0 otherwise */
    int64_t group_size_n;   /* N extent of one scale (BLOCK); 0 otherwise */
    hum_dtype scale_dtype;  /* float16, bfloat16, float32, float8_e4m3fn, float8_e5m2 or float8_e8m0 */
    /* scale: ([E,] N, 1) CHANNEL; ([E,] N, ceil(K/group_size)) GROUP(_TENSOR);
     * ([E,] ceil(N/group_size_n), ceil(K/group_size)) BLOCK; rank 0 / data NULL for TENSOR.
     * Stored with scale_dtype elements (fp8/e8m0 as one byte each). Negative scales are legal. */
    hum_tensor scale;
    int32_t has_zero_point;
    int32_t zero_point_is_float;
    /* zero_point, int: int32 ([E,] ceil(N*bits/32), G) packed LSB-first along N (not K), with
     * G = 1 (channel) or ceil(K/group_size); values in [0, 2^bits).
     * zero_point, float: param_dtype ([E,] N, G). */
    hum_tensor zero_point;
    hum_tensor global_scale; /* float32 (1) or (E); data NULL when unused */
    hum_tensor bias;         /* param_dtype ([E,] N); data NULL when absent */
    /* act-order: int32 ([E,] K') or data NULL; a MoE weight has one row per expert (each
     * expert's own order). Column j of expert e's `weight` (and of its scales/zero points, via
     * j / group_size) is column k_perm[e][j] of the checkpoint; activations are gathered to
     * match: A'[:, j] = A[:, k_perm[e][j]]. Each row holds every input column 0..K-1 once; an
     * entry -1 is a padding column (A'[:, j] = 0; its codes dequantize to 0 and the reference
     * skips it), so K' = K + the pads of a row, alike for every expert. Pads let a row shard of
     * a GPTQ act-order layer whose groups are spread over K keep its columns' whole groups
     * (hum_standard_shard). */
    hum_tensor k_perm;
    /* The checkpoint's own activation scheme, which a layer runs by default where the GPU can
     * (lua/hum/layer.lua decides; docs/formats.md): act_dtype 0 for weight-only checkpoints
     * (16-bit A), float8_e4m3fn or int8 (W8A8, FP8 block), float4_e2m1 (W4A4, NVFP4: never run
     * as such by this build, which falls back). act_scale and act_group: TOKEN / TENSOR with
     * group 0, GROUP with 128 (float32 per 1 x 128, FP8 block-wise), 32 (e4m3: MXFP8, e8m0) or 16
     * (e2m1: NVFP4); TOKEN and 0 when act_dtype is 0. input_scale: float32 (1) or (E), the
     * static per-tensor scale (dequantized A = code * input_scale), present exactly when
     * act_scale is TENSOR; finite and > 0. */
    hum_dtype act_dtype;
    hum_act_scale act_scale;
    int32_t act_group;
    hum_tensor input_scale;
} hum_standard_weight;

/* Releases every tensor the struct owns and zeroes it. Safe on a zeroed struct. */
void hum_standard_free(hum_standard_weight *w);

/*
 * Tensor- and expert-parallel shards of a standard weight, as a multi-GPU host loads them
 * (every checkpoint format alike: the shard is cut from the converted standard weight, so
 * packed layouts, zero points and block scales of the checkpoint need no rule of their own).
 *  - COLUMN (column-parallel, split N): rank r keeps output rows [r*N/world, (r+1)*N/world)
 *    with their scales, zero points and bias; concatenating the ranks' outputs along N gives
 *    the full output. N must be a multiple of world, and with BLOCK scales N / world a
 *    multiple of group_size_n (a block may not straddle two ranks).
 *  - ROW (row-parallel, split K): rank r keeps input columns [r*K/world, (r+1)*K/world) of the
 *    checkpoint column order (the slice of the activations a row-parallel layer receives),
 *    with their groups' scales and zero points; the bias stays on rank 0 only, so the sum
 *    of the ranks' outputs is the full output. K must be a multiple of world, and with
 *    GROUP, GROUP_TENSOR and BLOCK scales and no act-order each rank must hold whole groups
 *    (K / world a multiple of group_size). With act-order (k_perm) a rank may hold part of a
 *    group (GPTQ desc_act spreads every group over K): as real loaders do, each of its
 *    columns keeps its group's scale and zero point; the shard stores each group's columns
 *    it holds as a run padded with padding columns (k_perm -1) to a multiple of 16 columns
 *    (of group_size when that is not a multiple of 16), with group_size 16 and every run's
 *    scale and zero point repeated per 16 columns; the experts of a MoE weight are padded
 *    to one K'. When every group lies whole on the rank no padding is added and the group
 *    size stays. The shard's k_perm maps its columns to its own input slice (NULL when that
 *    is the identity).
 *  - experts (expert parallelism, MoE weights only): the checkpoint's expert ids this rank
 *    holds, in the order the shard stores them (any subset, no repeats; the host's expert
 *    map sends expert experts[i] to local expert i). Combines with COLUMN / ROW. Loading a
 *    shard (hum_layer_load_shard, hum_layer_options.shard) converts only these experts: the
 *    modules of a checkpoint that stores one per expert, the slices of fused 3-D tensors.
 * world 1 (or NONE with no experts) gives a copy.
 */
typedef enum hum_shard_dim {
    HUM_SHARD_NONE = 0,   /* whole N and K */
    HUM_SHARD_COLUMN = 1, /* split N */
    HUM_SHARD_ROW = 2     /* split K */
} hum_shard_dim;

typedef struct hum_shard {
    int32_t dim;             /* a hum_shard_dim */
    int32_t rank, world;     /* 0 <= rank < world; ignored with NONE */
    const int32_t *experts;  /* local expert ids, or NULL: every expert */
    int64_t expert_count;    /* entries of experts (>= 1 when experts is set) */
} hum_shard;

/* Writes the shard of `w` into *out (owned by out: hum_standard_free; `w` is unchanged).
 * Errors (out left zeroed): those of hum_standard_validate for `w`; HUM_ERR_INVALID_ARG for
 * NULL, an unknown dim, rank outside [0, world), an expert id out of range or repeated, experts
 * on a dense weight; HUM_ERR_UNSUPPORTED naming the rule above that the split breaks (N or K
 * not a multiple of world, a block or group cut in two); HUM_ERR_OUT_OF_MEMORY. */
hum_status hum_standard_shard(const hum_standard_weight *w, const hum_shard *shard, hum_standard_weight *out);

/* Writes into *out (owned by out: hum_standard_free) the parts stacked along N: out's rows are
 * part 0's, then part 1's, ... for every expert (a MoE layer's w13 from a checkpoint's gate_proj
 * and up_proj: gate first, HUM_MOE_GATE_UP_SPLIT). The parts must be quantized alike over the
 * same K: the same num_experts, K, dtypes, scale type, group sizes, zero-point kind, k_perm,
 * activation scheme and input_scale, and presence of a bias; with BLOCK scales every part but
 * the last N a multiple of group_size_n. Parts of different global scales (ModelOpt NVFP4 gate
 * and up often carry two: vLLM issue 54974) are stacked with each part's global scale folded
 * into its scales: out has float32 scales, each the decoded scale times its part's global
 * scale of the expert rounded once to float32, TENSOR scales become CHANNEL and GROUP_TENSOR
 * GROUP, and no global scale. Errors (out left zeroed): those of hum_standard_validate for a
 * part (named); HUM_ERR_INVALID_ARG for NULL or count < 1; HUM_ERR_UNSUPPORTED for parts that
 * differ (naming the part and field) or a BLOCK row cut; HUM_ERR_OUT_OF_MEMORY. */
hum_status hum_standard_concat(const hum_standard_weight *parts, int32_t count, hum_standard_weight *out);

/* Checks `w` against the rules of hum_standard_weight above: N, K >= 1; weight_dtype
 * uint1..uint8 or a float of 8 bits or fewer; param_dtype float16 or bfloat16; every tensor
 * in host memory, contiguous, of the dtype and shape its scale type gives; group_size >= 1
 * exactly for GROUP, GROUP_TENSOR and BLOCK (else 0), group_size_n >= 1 exactly for BLOCK;
 * BLOCK scales float32 and without a zero point; zero points only with integer weights;
 * global_scale (float32, (1) or (E)) present for TENSOR and GROUP_TENSOR; k_perm (K') or
 * (E, K'), each row every column 0..K-1 once and -1 (padding) otherwise, K' >= K.
 * HUM_ERR_INVALID_ARG naming the field, what was expected and what was found. */
hum_status hum_standard_validate(const hum_standard_weight *w);

/* ====================================================================================== */
/* Layers: prepare and forward                                                             */
/* ====================================================================================== */
/* HUM-SECTION layer */

/*
 * A layer is one quantized dense linear weight, prepared for the GPU: C[M, N] = A[M, K] *
 * dequant(W)[N, K]^T (+ bias) with float16 or bfloat16 activations A and output C, or with 8-bit
 * activations (float8_e4m3fn, int8) the host quantized, their float32 scales, and a float16 or
 * bfloat16 C (hum_layer_options, hum_layer_forward).
 * Lifecycle: hum_layer_from_standard / hum_layer_from_safetensors (host only) ->
 * hum_layer_prepare (derives the LayerConfig in lua/hum/layer.lua, asks the policy in force
 * for its M-range table, compiles one kernel per range in parallel, uploads and repacks the
 * weights on the GPU) -> hum_layer_forward (or hum_layer_forward_ws with a workspace of the
 * host's, for concurrent forwards), any number of times -> hum_layer_destroy. A policy reload
 * replaces a prepared layer's dispatch table under running forwards
 * (hum_runtime_reload_policies).
 *
 * Supported (kernels/gemm/gemm_mma.cu, the mma.sync path: sm_80 and newer, sm_75 with float16 only):
 *  - weights uint1..uint8 (offset binary: symmetric around 2^(b-1), or with an integer or a
 *    float zero point), or floats of at most 8 bits whose exponent and mantissa fit the
 *    activation type (float8_e4m3fn, float8_e5m2, float4_e2m1, float6_e3m2, float6_e2m3, eXmY);
 *  - scales CHANNEL, GROUP and GROUP_TENSOR (group sizes 16, 32, multiples of 64, or >= K),
 *    BLOCK (expanded along N), TENSOR; scale dtypes float16, bfloat16, float32, float8_e4m3fn,
 *    float8_e5m2, float8_e8m0, converted to the activation type at prepare time times a power
 *    of two that keeps the dequantized weights in range (the rest is applied in float32);
 *  - optional bias, act-order (k_perm: each forward gathers A's columns into the weights' K
 *    order first, kernels/prep/permute_a.cu), any N and K (padded
 *    to multiples of 64 and 128 inside the layer), any M >= 1.
 *  - 8-bit activations: float8_e4m3fn A (sm_89 and newer) with float8_e4m3fn, uint4 (read
 *    as integers around 8) or float4_e2m1 weights; int8 A (sm_80 and newer) with uint8 (read
 *    as int8 around 128) or uint4 weights; weight scales CHANNEL (any scale dtype, kept in
 *    float32) or TENSOR, and for float4_e2m1 with e4m3 A also e8m0 groups of a multiple of 32
 *    along K (MXFP4: the groups' powers of two folded into the decoded codes, one float32
 *    factor per column left); K a multiple of 16; no zero point, no act-order; on both
 *    kernels (wgmma k32 on sm_90a). e4m3 products are added to float32 totals every 128 of K.
 * A combination outside this list fails at prepare time with HUM_ERR_UNSUPPORTED naming it.
 * On sm_90 the built-in policy runs the M ranges from 33 up on kernels/gemm/gemm_wgmma.cu (Hopper
 * warpgroup MMA, same prepared weights, same results to rounding) for the layers that kernel
 * takes (policy field `kernel`, hum_tuning; its rules: docs/policies.md, "Tuning fields").
 * Known limit: float8_e5m2 codes with an all-ones exponent (which the standard format reads
 * as finite numbers of 65536 and more) overflow float16 activations.
 */
typedef struct hum_layer_options {
    /* A: float16 or bfloat16 (C then has the same dtype), or quantized activations
     * float8_e4m3fn or int8 that the host passes with their float32 scales (hum_layer_forward);
     * HUM_DTYPE_INVALID (0): the weight's param_dtype */
    hum_dtype activation_dtype;
    /* the tensor-parallel shard of the weight the layer holds (hum_standard_shard); zeroed:
     * the whole weight */
    hum_shard shard;
    /* C: float16 or bfloat16, equal to activation_dtype when that is 16-bit; HUM_DTYPE_INVALID
     * (0): activation_dtype when 16-bit, else the weight's param_dtype */
    hum_dtype output_dtype;
    /* K extent of one activation scale of 8-bit A: 0 (one scale per row, [M], or per tensor,
     * [1]); for float8_e4m3fn also 128 (float32 [M, ceil(K / 128)], FP8 block-wise) or 32 (e8m0
     * bytes [M, ceil(K / 32)], MXFP8); 0 for 16-bit and int8 A (any other: HUM_ERR_INVALID_ARG
     * when the layer is made). Groups run on sm_89 and newer, applied
     * in float32 every 128 (32) of K where the e4m3 accumulators are promoted (dense layers
     * checked on the H200 by tests/gpu/test_gemm_kgroup.c, docs/formats.md). The host's MXFP8
     * runs so; a layer's own mxfp8 (from 16-bit A) is rounded into 16-bit A instead
     * (LayerConfig a_round) */
    int32_t activation_group;
} hum_layer_options;

/*
 * The three configs of a GEMM, as in Humming: LayerConfig fixes the prepared weight layout and
 * the kernel's types, ComputeConfig the numerics (not the weights), TuningConfig only the
 * speed. Each field list below is the one place a field is declared: it generates these
 * structs, the field table lua/hum/ reads (hum_config_fields) and the kernels' compile-time
 * constants ("hum_constants.h", namespace hum_cfg). An entry is
 *   X(C type, name, kind, role, constant, values)
 * kind: INT, BOOL (int32_t 0/1, true/false in Lua), DTYPE (a hum_dtype; its name in Lua), ENUM
 * (int32_t; `values` names 0, 1, ... space-separated, the names Lua uses).
 * role: IN (set by the caller: from the weight and options for the layer and compute configs,
 * by the policy for a tuning), OPTIONAL (a tuning field a policy may leave out: 0, the first
 * enum name), DERIVED (filled by planning: lua/hum/layer.lua for the layer config, and the
 * compute config's facts of a MoE layer, moe_*).
 * constant: the hum_cfg name of the field's value in "hum_constants.h", "" for none.
 */
#define HUM_LAYER_CONFIG_FIELDS(X)                                                               \
    X(int64_t, n, INT, IN, "kNReal", "")                 /* output features N */                 \
    X(int64_t, k, INT, IN, "kKReal", "")                 /* K of the GEMM: the stored K' */      \
    X(int64_t, num_experts, INT, IN, "kExperts", "")     /* 0: dense */                          \
    X(hum_dtype, a_dtype, DTYPE, IN, "kADtype", "")      /* activations A */                     \
    X(hum_dtype, c_dtype, DTYPE, IN, "kCDtype", "")      /* output C */                          \
    /* K extent of one scale of 8-bit A (hum_layer_options.activation_group), 0: one per row */ \
    X(int64_t, a_group, INT, IN, "kAGroup", "")                                                  \
    /* how 8-bit A is scaled when the layer quantizes the 16-bit A the host passes (a           \
     * hum_act_scale: per token, per tensor with the weight's input_scale, per group of a_group) \
     * and whether a_dtype is fixed (the host quantizes A; and once a layer is prepared, since   \
     * its weights are laid out for it): no override and no fallback then (lua/hum/activation.lua) */ \
    X(int32_t, a_scale, ENUM, IN, "", "token tensor group")                                      \
    X(int32_t, a_fixed, BOOL, IN, "", "")                                                        \
    /* mxfp8 activations computed in 16-bit (a hum_a_round; no GPU before sm_100 has a          \
     * block-scaled MMA, lua/hum/activation.lua decides it): mxfp8, each forward rounds the     \
     * host's 16-bit A [M, K] to mxfp8 values (e4m3fn codes times e8m0 scales per 32 columns,   \
     * hum_quantize_activations' rules) in a_dtype, 16-bit, into the workspace, [M, K] of K x 2 \
     * bytes a row (a MoE layer: its hidden rows, and the activation's output for the down      \
     * GEMM); the GEMM sees 16-bit A. Takes a 16-bit a_dtype, a_scale token, a_group 0, no      \
     * act-order (gemm_variant.c). Not a kernel constant: the GEMM is a 16-bit layer's */       \
    X(int32_t, a_round, ENUM, IN, "", "none mxfp8")                                              \
    X(hum_dtype, weight_dtype, DTYPE, IN, "kWeightDtype", "")                                    \
    X(hum_dtype, param_dtype, DTYPE, IN, "", "")         /* the checkpoint's 16-bit type */      \
    X(hum_dtype, scale_dtype, DTYPE, IN, "", "")                                                 \
    X(hum_scale_type, scale_type, ENUM, IN, "", "channel group block tensor group_tensor")      \
    X(int64_t, group_size, INT, IN, "", "")              /* as in hum_standard_weight */         \
    X(int64_t, group_size_n, INT, IN, "kGroupN", "")                                             \
    X(int32_t, zero_point, ENUM, IN, "kZeroPointKind", "none int float") /* a hum_zero_point_kind */ \
    X(int32_t, has_bias, BOOL, IN, "kBias", "")                                                  \
    X(int32_t, act_order, BOOL, IN, "kActOrder", "")     /* k_perm: dense A is permuted first */ \
    X(int32_t, has_global_scale, BOOL, IN, "", "")                                               \
    /* MXFP4 (float4_e2m1 codes, e8m0 scales in groups along K): every group's scale lies within \
     * 2^11 of the largest of its row, which e4m3 activations' byte tables decode without the    \
     * float16 fallback (kernels/gemm/dequant.cuh, fp4_window). A fact of the weights, read when \
     * the layer is planned from them (hum_layer_fold_window); 0 where they are not at hand     \
     * (hum compile --layer): the kernels then test the groups as they run */                   \
    X(int32_t, fold_window, BOOL, IN, "", "")                                                    \
    X(int64_t, padded_n, INT, DERIVED, "kN", "")         /* N rounded up to 64 */                \
    X(int64_t, padded_k, INT, DERIVED, "kK", "")         /* K rounded up to 128 */               \
    /* K extent of one prepared scale row (padded_k: one row) */                                 \
    X(int64_t, kernel_group, INT, DERIVED, "kGroup", "")                                         \
    X(int64_t, scale_rows, INT, DERIVED, "", "")         /* ceil(padded_k / kernel_group) */     \
    X(int32_t, has_scale, BOOL, DERIVED, "kHasScale", "") /* 0 for TENSOR: no scale rows */      \
    X(int32_t, has_zero_point, BOOL, DERIVED, "kZeroPoint", "") /* zero-point rows prepared */   \
    X(int32_t, weight_float, BOOL, DERIVED, "kWeightFloat", "") /* float codes, else uints */    \
    X(int32_t, weight_bits, INT, DERIVED, "kWeightBits", "")                                     \
    X(int32_t, weight_exp, INT, DERIVED, "kWeightExp", "") /* exponent bits of float codes */    \
    /* float weights decode 2^exp_compensation too small (the activation type's exponent bias    \
     * minus the weight's); the prepared scales and the epilogue give it back */                \
    X(int32_t, exp_compensation, INT, DERIVED, "", "")

#define HUM_COMPUTE_CONFIG_FIELDS(X)                                                             \
    /* how A rows map to experts: dense, or a MoE expert GEMM (docs/moe.md): indexed (sorted   \
     * token ids), grouped contiguous (expert offsets), grouped masked (per-expert counts) */    \
    X(int32_t, gemm_type, ENUM, IN, "kGemmTypeId", "dense indexed grouped_contiguous grouped_masked") \
    X(int32_t, f16_accum, BOOL, IN, "kF16Accum", "")      /* accumulate in float16 */            \
    /* An expert GEMM's facts of its MoE layer: both GEMMs share one routing layout, so their    \
     * policy picks block_m per range of M from these, never from one GEMM's own config. Over    \
     * both GEMMs (moe_prepare.c); a lone expert GEMM's are its own, and 0 in moe_weight_bits    \
     * asks lua/hum/layer.lua for them. Dense layers: 0. */                                      \
    X(int32_t, moe_wgmma, BOOL, DERIVED, "", "")          /* the wgmma families take both */     \
    X(int32_t, moe_a8, BOOL, DERIVED, "", "")             /* either runs 8-bit A */              \
    X(int32_t, moe_weight_bits, INT, DERIVED, "", "")     /* the wider weight codes */           \
    X(int64_t, moe_kernel_group, INT, DERIVED, "", "")    /* the shorter kernel_group */         \
    /* the shorter period of scales along K with e4m3 A (hum_layer_kgroup_k; 0: neither has      \
     * any), which caps wgmma's block_m (hum_gemm_wgmma_fit) */                                  \
    X(int64_t, moe_kscale_k, INT, DERIVED, "", "")

#define HUM_TUNING_FIELDS(X)                                                                     \
    X(int32_t, block_m, INT, IN, "kBM", "")  /* CTA tile: tokens x output features x K */        \
    X(int32_t, block_n, INT, IN, "kBN", "")                                                      \
    X(int32_t, block_k, INT, IN, "kBK", "")                                                      \
    X(int32_t, warp_m, INT, IN, "kWM", "")   /* warp tile */                                     \
    X(int32_t, warp_n, INT, IN, "kWN", "")                                                       \
    X(int32_t, warp_k, INT, IN, "kWK", "")                                                       \
    X(int32_t, stages, INT, IN, "kStages", "")        /* shared-memory pipeline depth */         \
    X(int32_t, stream_k, BOOL, IN, "kStreamK", "")    /* K loop split across CTAs */             \
    X(int32_t, ctas_per_sm, INT, IN, "kCtasPerSm", "")                                           \
    X(int32_t, kernel, ENUM, OPTIONAL, "", "mma wgmma wgmma_ws mma_direct") /* the kernel family, hum_gemm_kernel */ \
    /* where stream-K slices sum: through the output (each adds its part rounded to C's type),   \
     * or in the workspace (float32 partial tiles, C rounded once) */                            \
    X(int32_t, stream_k_sum, ENUM, OPTIONAL, "kStreamKSum", "output workspace")                  \
    /* e4m3 A without scales along K: K between promotions of the tensor cores' accumulators to  \
     * float32 totals (0: 128; within K a power of two; at or above the padded K never: one      \
     * accumulator set, whose reduced-precision sums a policy trades against the room it frees) */ \
    X(int32_t, promote_k, INT, OPTIONAL, "kPromoteEvery", "")                                  \
    /* wgmma_ws: where the epilogue stages C: in a tile of its own after the stages, or in the   \
     * A slot of the segment's last stage (no tile of its own: room for a stage more)            \
     * (hum_gemm_wgmma_epilogue_smem) */                                                         \
    X(int32_t, c_tile, ENUM, OPTIONAL, "kCTile", "own stage")                                   \
    /* wgmma_ws, dense: two CTAs side by side along N (a thread-block cluster) load their tile   \
     * of A once, each half of its rows into both by TMA multicast */                           \
    X(int32_t, multicast_a, BOOL, OPTIONAL, "kMulticastA", "")                                  \
    /* dense, stream-K summed in the workspace: a launch runs every tile whole instead where its \
     * tiles fill the grid's waves to this percent or more (0: never; the kernel is the same;    \
     * fitted to 0 on expert GEMMs, whose launch knows only a bound on the row blocks) */        \
    X(int32_t, whole_fill, INT, OPTIONAL, "", "")                                               \
    /* wgmma_ws, dense, e4m3 weights beside e4m3 A, block_n <= 128: the weights arrive by TMA    \
     * and wgmma reads them from shared memory (SS) instead of register fragments               \
     * (hum_gemm_wgmma_fit) */                                                                   \
    X(int32_t, weights_ss, BOOL, OPTIONAL, "kWeightsSS", "")                                  \
    /* the tile order's group of m-blocks (1..64; 0: 8, to which 8 is fitted), visited m fastest \
     * so that the tiles running at once share A's rows and the weights' columns in L2: fewer    \
     * keep less of A there beside the weights when its rows are long */                         \
    X(int32_t, group_m, INT, OPTIONAL, "kGroupM", "")                                          \
    /* wgmma_ws, dense, 8-bit A quantized per token by the layer: the GEMM quantizes the host's \
     * 16-bit rows itself, later m-blocks while it multiplies the first (no quantizer launch; \
     * kernels/gemm/quant_a.cuh). A forward whose A it cannot take (A's 16-bit type other than \
     * the output's, rows not 16-byte aligned, more than 1022 row blocks in one chunk of the    \
     * workspace) quantizes first, as without it */                                             \
    X(int32_t, quantize_a, BOOL, OPTIONAL, "kQuantA", "")

#define HUM_CONFIG_MEMBER(type, name, kind, role, constant, values) type name;

/* LayerConfig. hum_layer_prepare fills the IN fields from the standard weight and the options;
 * lua/hum/layer.lua checks them and derives the rest. */
typedef struct hum_layer_config {
    HUM_LAYER_CONFIG_FIELDS(HUM_CONFIG_MEMBER)
} hum_layer_config;

/* ComputeConfig: what changes the numerics but not the weights. */
typedef enum hum_gemm_type {
    HUM_GEMM_DENSE = 0,
    HUM_GEMM_MOE_INDEXED = 1,
    HUM_GEMM_MOE_GROUPED_CONTIGUOUS = 2,
    HUM_GEMM_MOE_GROUPED_MASKED = 3
} hum_gemm_type;

typedef struct hum_compute_config {
    HUM_COMPUTE_CONFIG_FIELDS(HUM_CONFIG_MEMBER)
} hum_compute_config;

/* The kernel family of a tuning (policy field `kernel`): MMA is the mma.sync kernel
 * (kernels/gemm/gemm_mma.cu, sm_75 and newer); WGMMA the Hopper warpgroup-MMA kernel
 * (kernels/gemm/gemm_wgmma.cu, sm_90a only), whose warp tile is block_m tokens x 16 rows of each
 * of warp_n / 16 64-row slabs x block_k; WGMMA_WS the same kernel warp-specialised (a producer
 * warpgroup issues the copies); MMA_DIRECT the mma.sync kernel on warps of 8 rows whose weights,
 * scales and A go from global memory straight into registers (`stages` work items a warp ahead,
 * no shared-memory stages; sm_75 and newer). The layers and tunings each takes: docs/policies.md. */
typedef enum hum_gemm_kernel {
    HUM_GEMM_KERNEL_MMA = 0,
    HUM_GEMM_KERNEL_WGMMA = 1,
    HUM_GEMM_KERNEL_WGMMA_WS = 2,
    HUM_GEMM_KERNEL_MMA_DIRECT = 3
} hum_gemm_kernel;

/* The name a policy gives kernel family `kernel` (its tuning's `kernel`, docs/policies.md):
 * "mma", "wgmma", "wgmma_ws", "mma_direct"; NULL for a value that names no family. Tables that
 * show a dispatch (hum info, the binding) print this name, the one a policy file takes. */
const char *hum_gemm_kernel_name(int32_t kernel);

/* TuningConfig (docs/policies.md, "Tuning fields"), with the range of M it is for in a dispatch
 * table (not a tuning field: planning sets it). */
typedef struct hum_tuning {
    int64_t m_min, m_max; /* inclusive; m_max of the last entry is INT64_MAX */
    HUM_TUNING_FIELDS(HUM_CONFIG_MEMBER)
} hum_tuning;

/* Entries of a dispatch table at most: ranges of M, each its own kernel (policies/sm90.lua's W4A8
 * MXFP4 table takes 10 on 132 SMs; the rest is room for site policies). */
enum { HUM_LAYER_MAX_ENTRIES = 16 };

/* A layer from a standard weight (copied: `w` stays the caller's), or from its shard when
 * opts->shard asks for one; opts may be NULL. Host only, no GPU needed. Errors:
 * HUM_ERR_INVALID_ARG (NULL, a weight hum_standard_validate refuses, an activation dtype other
 * than float16/bfloat16); HUM_ERR_UNSUPPORTED (num_experts > 0 after the shard: MoE weights are
 * no dense layer); those of hum_standard_shard; HUM_ERR_OUT_OF_MEMORY. hum_layer_compile
 * plans the same shard. */
hum_status hum_layer_from_standard(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                                   hum_layer **out);
/* A layer from a checkpoint (file or directory) through formats/ (hum_layer_load_standard).
 * Errors: those of hum_layer_load_standard and hum_layer_from_standard. */
hum_status hum_layer_from_safetensors(hum_runtime *rt, const char *path, const char *layer_name,
                                      const hum_layer_options *opts, hum_layer **out);

/*
 * Prepares the layer on the runtime's GPU: plans it (LayerConfig and the policy's M-range
 * table, lua/hum/layer.lua), compiles every range's kernel in parallel through the kernel
 * cache, uploads the weights and preprocesses them on the GPU (padding, repack into the MMA
 * fragment layout, scale and zero-point conversion and permutation), then drops the host
 * copy. Preparing a prepared layer does nothing. Errors: HUM_ERR_NO_DEVICE; HUM_ERR_UNSUPPORTED
 * naming the combination; HUM_ERR_POLICY (the policy failed, file:line); HUM_ERR_COMPILE;
 * HUM_ERR_CUDA / HUM_ERR_OUT_OF_MEMORY. On failure the layer is as before the call.
 */
hum_status hum_layer_prepare(hum_layer *layer);

/*
 * C = A * dequant(W)^T (+ bias) on `stream` (the host's CUstream; NULL: the legacy default
 * stream), asynchronously, with `ws` as scratch memory (hum_workspace_create). Picks the kernel
 * for M = a->shape[0] from the dispatch table; no host allocation, no Lua, no locks. Tensors
 * (device memory, rank 2; a of the activation dtype, c of the output dtype):
 *   a: [M, K] (K: the weight's, hum_layer_info.input_k), row stride strides[0] (0: K),
 *      strides[1] 0 or 1. Unless the layer is act-order or K % 8 != 0, the data pointer and
 *      the row stride must be 16-byte aligned.
 *   c: [M, N], row stride strides[0] (0: N); with N even, 4-byte aligned pointer and stride.
 *   a_scale: NULL for 16-bit A. 8-bit A (a layer of activation_dtype float8_e4m3fn or int8,
 *      hum_layer_options) is the host's quantized activations: A's row m times a_scale's value
 *      for it is the activation. a_scale is float32 device memory, contiguous: [M] (one scale
 *      per token) or [1] (one for the tensor); with activation_group 128, [M, ceil(K / 128)]
 *      (row stride strides[0], 0: ceil(K / 128)); with activation_group 32 (MXFP8), e8m0
 *      device bytes [M, ceil(K / 32)] (2^(byte - 127)). The 8-bit A's data pointer and row
 *      stride must be 16-byte aligned. C = (sum over k of a[m][k] * w[n][k]) * a_scale[m] *
 *      w_scale[n] (+ bias), the scales applied in float32 to the float32 (e4m3) or int32 (int8)
 *      accumulators; scales that change along K (A's groups, a weight's float32 block or group
 *      scales along K with e4m3 A) multiply each group's partial sum, in float32, instead.
 *   A layer whose planned activations are 8-bit (hum_layer_info.config.a_dtype: the host's
 *   8-bit activation_dtype, or the checkpoint's scheme or the deployment override where the GPU
 *   runs it, lua/hum/activation.lua) also takes 16-bit A (float16 or bfloat16, any alignment)
 *   with a_scale NULL: it quantizes A into the workspace itself first
 *   (kernels/prep/quantize_a.cu: per token, per tensor with the weight's input_scale, or per
 *   group, config.a_scale), then runs the 8-bit GEMM; a workspace that holds fewer than M rows
 *   makes it work through M in chunks, as act-order layers do. A layer that rounds A through
 *   mxfp8 (config.a_round) takes 16-bit A of its a_dtype, rounds it into the workspace the same
 *   way (rows of K x 2 bytes, in chunks as above) and runs the 16-bit GEMM on it.
 * Act-order layers first gather A's columns into the prepared weights' K order in the
 * workspace (kernels/prep/permute_a.cu; zeros into the padding columns of an act-order row
 * shard, K' = config.k wide), then run the same kernels as a layer without act-order; a
 * workspace that holds fewer than M rows (hum_layer_workspace_size) makes the forward work
 * through M in chunks of the rows it holds (two launches each).
 * Concurrency: a workspace serves one forward at a time: forwards that share one must be
 * ordered on one stream (and not issued from two threads at once). Forwards of one layer with
 * different workspaces may run at once, from any threads on any streams. Not concurrently with
 * the layer's prepare or destroy. CUDA-graph capture works (the launches take no host sync).
 * The call makes the layer's device's primary context current on the calling thread.
 * M == 0 does nothing. Errors: HUM_ERR_INVALID_ARG naming the tensor or the workspace and what
 * was expected (nothing is launched); HUM_ERR_CUDA when a launch fails.
 */
hum_status hum_layer_forward_ws(hum_layer *layer, hum_workspace *ws, struct CUstream_st *stream, const hum_tensor *a,
                                const hum_tensor *a_scale, const hum_tensor *c);

/* hum_layer_forward_ws with the layer's own workspace (made at prepare: the stream-K locks and
 * partial tiles, and for an act-order layer, or one of 8-bit A, room for the rows of up to 16 MiB
 * of 16-bit A but at least 256 rows), so forwards
 * of one layer through this call must not overlap (one stream, one thread at a time). */
hum_status hum_layer_forward(hum_layer *layer, struct CUstream_st *stream, const hum_tensor *a,
                             const hum_tensor *a_scale, const hum_tensor *c);

/* Bytes of a workspace in which forwards of `layer` (prepared) with M <= max_m run in one pass:
 * the lock area (what every layer needs: the stream-K locks, SMs x 32 int32 rounded up to 256
 * bytes, and 4096 bytes of counters for the GEMMs that quantize their own A), the
 * stream-K partial tiles of its dispatch table in force when a tuning sums its slices there
 * (stream_k_sum workspace: 32-bit [block M x block N] per CTA of the largest grid, SMs x CTAs
 * per SM, rounded up to 256; a workspace without room for them runs those GEMMs without
 * stream-K, slower at small M; a policy reload may change the size) plus, for a dense
 * act-order layer or one that rounds A through mxfp8 (config.a_round), max_m x K 16-bit
 * elements rounded up to 256; for a dense layer of 8-bit A, the codes of max_m quantized rows
 * (K rounded up to 16 bytes each) and their float32 scales (one per row, or per group of
 * config.a_group columns), each rounded up to 256. An expert GEMM (hum_tools.h) takes its A
 * made: the locks and partial tiles alone, whatever max_m. A workspace of the largest
 * size over a set of layers serves each of them. Errors: HUM_ERR_INVALID_ARG (NULL, an
 * unprepared layer, max_m < 0 or one whose size overflows). */
hum_status hum_layer_workspace_size(const hum_layer *layer, int64_t max_m, int64_t *bytes);

/* A workspace of `bytes` bytes on the runtime's GPU, in device memory hum allocates
 * (device_memory NULL) or in the host's (device memory of that GPU, 256-byte aligned, at least
 * `bytes` long, owned by the host, which frees it after hum_workspace_destroy). Zeroes its
 * lock area and waits for that. Errors: HUM_ERR_INVALID_ARG (NULL runtime or out, fewer bytes
 * than the lock area takes, a misaligned pointer), HUM_ERR_NO_DEVICE, HUM_ERR_OUT_OF_MEMORY,
 * HUM_ERR_CUDA. */
hum_status hum_workspace_create(hum_runtime *rt, void *device_memory, int64_t bytes, hum_workspace **out);

/* Frees the workspace (and its memory when hum allocated it); NULL is a no-op. Not while a
 * forward using it may still run on a stream. */
void hum_workspace_destroy(hum_workspace *ws);

/* Frees the layer, its device memory and kernels; NULL is a no-op. Not while a forward of it
 * may still run on a stream. */
void hum_layer_destroy(hum_layer *layer);

typedef struct hum_layer_info {
    hum_layer_config config;
    int32_t prepared;
    int32_t entry_count;
    hum_tuning entries[16];   /* HUM_LAYER_MAX_ENTRIES */
    char policy_name[64];
    char arch[16];
    double prepare_ms;        /* wall time of hum_layer_prepare (or hum_layer_compile) */
    double compile_ms;        /* of which compiling the kernels */
    int32_t kernels_compiled; /* NVRTC runs (kernel cache misses) */
    int32_t kernels_cached;   /* kernels the cache served */
    int32_t scale_exponent;   /* prepared scales are the checkpoint's times 2^scale_exponent */
    float out_factor;         /* the float32 factor the epilogue applies (global scale included) */
    int64_t device_bytes;     /* device memory the layer holds (its own workspace included) */
    uint64_t generation;      /* of the dispatch table in force: 0 at prepare, +1 per policy reload */
    /* Where hum_layer_prepare's prepare_ms went (0 before it, and for hum_layer_compile): after
     * planning, the weights go to the GPU (context_ms + upload_ms) while the kernels compile and
     * load (compile_ms + load_ms). */
    double plan_ms;           /* planning: lua/hum/layer.lua and the policy */
    double context_ms;        /* making the device current; the process's first use creates its context */
    double upload_ms;         /* the weights to the GPU: preparation kernels, copies, repack */
    double load_ms;           /* loading the compiled kernels onto the device */
    /* columns of A: the weight's K; config.k is the GEMM's, K' >= K (padding columns of an
     * act-order row shard, hum_standard_weight.k_perm) */
    int64_t input_k;
} hum_layer_info;

/* What the layer is and how it was prepared; before hum_layer_prepare only the "in" fields of
 * config are set (the derived ones and the plan are zero). After it, entries, policy_name,
 * compile figures and generation are those of the dispatch table in force (a policy reload
 * replaces it). Safe beside forwards and reloads on other threads. HUM_ERR_INVALID_ARG for NULL. */
hum_status hum_layer_get_info(const hum_layer *layer, hum_layer_info *out);

/* One entry of a layer's dispatch table, as hum_layer_describe reports it. */
typedef struct hum_dispatch_row {
    hum_tuning tuning;  /* M range m_min..m_max (INT64_MAX: no upper bound) and the fitted tuning */
    int64_t smem_bytes; /* dynamic shared memory of one CTA */
    int32_t threads;    /* threads per CTA */
    char origin[256];   /* "file:line" of the policy line that chose the tuning, e.g.
                         * "embedded:policies/sm90.lua:31" (cut with "..." when longer) */
} hum_dispatch_row;

/* What runs for each M: the dispatch table of one layer on one device. */
typedef struct hum_layer_dispatch {
    char policy_name[64];
    char policy_origin[512]; /* the file of the policy that won for the device */
    char device_name[256];   /* the GPU, or the nominal device of the arch ("nominal sm_80 (A100 SXM)") */
    char arch[16];           /* what the kernels are compiled for: "sm_90a" */
    int32_t row_count;
    hum_dispatch_row rows[16]; /* HUM_LAYER_MAX_ENTRIES, ascending M, contiguous from M = 1 */
    /* what A is multiplied as, and why: "e4m3 per token (the checkpoint's; quantized by the
     * layer)", "bfloat16 (fallback from nvfp4: ...)" (lua/hum/activation.lua); cut with "..." in
     * the unlikely case it is longer */
    char activation[1024];
} hum_layer_dispatch;

/* The dispatch table in force for a prepared layer (the one the last policy reload published;
 * safe beside forwards and reloads on other threads). HUM_ERR_INVALID_ARG for NULL or a layer
 * not prepared yet (hum_layer_describe_plan, hum/hum_tools.h, plans one without preparing it). */
hum_status hum_layer_describe(const hum_layer *layer, hum_layer_dispatch *out);

/* ====================================================================================== */
/* MoE layers                                                                              */
/* ====================================================================================== */
/* HUM-SECTION moe */
/*
 * A MoE layer is the routed-experts block of a mixture-of-experts MLP: for each token t of
 * hidden[M, H] and each of its top_k experts e = topk_ids[t][j] with weight w = topk_weights[t][j],
 *   out[t] = sum over j of w * down_e(act(gate_up_e(hidden[t])))
 * where gate_up_e is expert e's w13 GEMM (N = 2I rows for the gated activations: gate and up,
 * I for relu2), act maps its 2I (or I) outputs to I, and down_e is expert e's w2 GEMM
 * (N = H, K = I). Both weights are standard weights with an expert dimension (num_experts = E
 * on both; hum_standard_weight, "([E,] ...)"), of any weight format a dense layer takes, and
 * per-expert biases added inside each GEMM (gpt-oss).
 * Lifecycle, as for a dense layer: hum_moe_from_standard or hum_moe_from_safetensors (host
 * only) -> hum_moe_prepare -> hum_moe_workspace_size and hum_workspace_create (the host's memory
 * or hum's) -> hum_moe_forward, any number of times -> hum_moe_destroy. A forward runs five steps
 * on the host's stream: the routing layout of the M * top_k slots (kernels/moe/align.cu), the
 * experts' gate/up GEMM on the rows routed to them, the activation (kernels/moe/act.cu), the down
 * GEMM, and the combine of each token's top_k rows with the router weights in float32
 * (kernels/moe/combine.cu).
 */
typedef struct hum_moe hum_moe;

typedef enum hum_moe_activation {
    HUM_MOE_SILU = 0,       /* silu(gate) * up (Mixtral, Qwen, DeepSeek) */
    /* gpt-oss: g = min(gate, limit), u = clamp(up, -limit, limit),
     * g * sigmoid(alpha * g) * (u + beta) */
    HUM_MOE_SWIGLU_OAI = 1,
    HUM_MOE_RELU2 = 2,      /* max(x, 0)^2, not gated: w13 holds I rows */
    HUM_MOE_GELU = 3        /* gelu(gate) * up, GELU in its erf form */
} hum_moe_activation;

/* Where the gated activations find gate and up among w13's 2I output rows. */
typedef enum hum_moe_gate_up {
    HUM_MOE_GATE_UP_SPLIT = 0,      /* rows [0, I) gate, [I, 2I) up (gate_proj then up_proj) */
    HUM_MOE_GATE_UP_INTERLEAVED = 1 /* row 2i gate i, row 2i + 1 up i (gpt-oss) */
} hum_moe_gate_up;

typedef struct hum_moe_options {
    /* float16 or bfloat16 (hidden and out); HUM_DTYPE_INVALID (0): the weights' param_dtype */
    hum_dtype activation_dtype;
    int32_t activation;     /* a hum_moe_activation */
    int32_t gate_up;        /* a hum_moe_gate_up (ignored for relu2) */
    int32_t top_k;          /* experts per token: 1 .. global experts */
    /* E_global, the range of the ids in topk_ids and the length of an expert map; 0: the
     * weights' E (every expert on this rank) */
    int32_t global_experts;
    float alpha, beta, limit; /* HUM_MOE_SWIGLU_OAI's constants (gpt-oss: 1.702, 1, 7) */
    /* expert parallelism: the experts of the weights this rank keeps, in the order it keeps
     * them (the forward's expert_map sends a global id to its index here), as hum_shard's
     * experts; NULL: all of them */
    const int32_t *experts;
    int64_t expert_count;
    /* the GEMM type of both expert GEMMs (hum_gemm_type, docs/moe.md): HUM_GEMM_MOE_INDEXED (0
     * means it too): hum_moe_forward routes tokens by their top-k ids;
     * HUM_GEMM_MOE_GROUPED_CONTIGUOUS or HUM_GEMM_MOE_GROUPED_MASKED: hum_moe_forward_grouped
     * takes rows a dispatcher already grouped by expert (DeepEP high-throughput / low-latency;
     * docs/moe.md) */
    int32_t gemm_type;
    /* hidden as the host passes it: HUM_DTYPE_INVALID (0), the activation dtype (the layer
     * quantizes it where its gate/up GEMM runs 8-bit A); or float8_e4m3fn / int8 codes the host
     * quantized itself (as vLLM's fused MoE passes a1q with a1q_scale), which the gate/up GEMM
     * takes as they are, with their scales, through hum_moe_forward_quantized (indexed layers;
     * out and the rows between the GEMMs stay the activation dtype) */
    hum_dtype hidden_dtype;
    /* K extent of one of those scales: 0 (one float32 per token); for float8_e4m3fn also 128
     * (float32 per 1 x 128 group, FP8 block-wise) or 32 (e8m0 bytes, MXFP8), as
     * hum_layer_options.activation_group. 0 for 16-bit hidden */
    int32_t hidden_group;
} hum_moe_options;

/* silu, split gate/up, top_k 0 (to be set), global experts 0, alpha 1.702, beta 1, limit 7,
 * all experts, the weights' param dtype, indexed, 16-bit hidden. */
void hum_moe_options_init(hum_moe_options *opts);

/*
 * A MoE layer from two expert weights, copied (the host keeps its own): w13 [E, 2I or I, H]
 * and w2 [E, H, I], kept whole or, with opts->experts, the experts listed (hum_standard_shard).
 * A weight with global scales (NVFP4, per-tensor FP8 experts) gets each expert's folded into
 * its scales (float32, rounded once: TENSOR scales become CHANNEL, GROUP_TENSOR GROUP): the
 * expert GEMMs apply no factor per expert.
 * Host only, no GPU needed. Errors: HUM_ERR_INVALID_ARG (NULL, a weight hum_standard_validate
 * refuses, num_experts 0 or different on the two, shapes that do not chain: w13's K is H = w2's
 * N, w13's N is 2 x w2's K (I for relu2); different param dtypes; an activation or gate_up
 * value out of range, a gemm_type other than the MoE types; top_k outside 1 .. global experts
 * (a grouped layer routes nothing, but its top_k sizes nothing either: 1 will do); global
 * experts below the weights' E
 * or above 2^31 - 1; an activation dtype other than float16 / bfloat16; a hidden dtype other
 * than 0, float8_e4m3fn or int8, a hidden group other than 0 (float8_e4m3fn: 0, 128 or 32), or
 * quantized hidden on a grouped layer; a bad expert list);
 * HUM_ERR_UNSUPPORTED (more than 4096 experts kept); HUM_ERR_OUT_OF_MEMORY.
 */
hum_status hum_moe_from_standard(hum_runtime *rt, const hum_standard_weight *w13, const hum_standard_weight *w2,
                                 const hum_moe_options *opts, hum_moe **out);

/*
 * A MoE layer from a checkpoint (file or directory, formats/ as for hum_layer_from_safetensors).
 * `name` is the experts' module ("model.layers.0.mlp.experts"); its projections are found as
 *   name.gate_up_proj and name.down_proj (fused 3-D tensors: gpt-oss, transformers; gate and up
 *     rows as opts->gate_up says),
 *   name.<e>.gate_proj, up_proj and down_proj (one module per expert: Qwen, DeepSeek), or
 *   name.<e>.w1, w3 and w2 (Mixtral),
 * the first that the checkpoint lists; separate gate and up projections are joined into w13
 * (gate rows, then up rows: HUM_MOE_GATE_UP_SPLIT, whatever opts->gate_up says), and relu2 takes
 * the up projection alone. With opts->experts only those experts are converted; global experts
 * default to the checkpoint's. Errors: HUM_ERR_FORMAT (no such experts module, naming the names
 * tried; a malformed checkpoint); HUM_ERR_UNSUPPORTED (gate and up quantized differently);
 * those of hum_layer_load_shard and hum_moe_from_standard.
 */
hum_status hum_moe_from_safetensors(hum_runtime *rt, const char *path, const char *name, const hum_moe_options *opts,
                                    hum_moe **out);

/*
 * Prepares the layer on the runtime's GPU: the gate/up and the down projections become two
 * expert GEMMs (of the options' GEMM type; indexed: tokens gathered per expert, docs/moe.md),
 * planned together (from the facts of both, as hum_moe_compile and hum_moe_describe_spec plan
 * them), then compiled and uploaded in parallel with each other and with the kernels around them
 * (the routing layout, the activation, the combine); then drops the host copies. The policy
 * must give an indexed layer's GEMMs the same block_m for every number of rows per expert (they
 * share one routing layout). Preparing a prepared layer does nothing. Errors: those of
 * hum_layer_prepare (the message names the projection; HUM_ERR_UNSUPPORTED for host-quantized
 * hidden the gate/up GEMM cannot take on this GPU, e.g. float8_e4m3fn before sm_89, as a dense
 * layer's fixed A type); HUM_ERR_POLICY when the two tables' block_m differ (naming
 * the rows per expert); HUM_ERR_INTERNAL when no thread can be started to prepare a GEMM on
 * (naming it). On failure the layer is as before the call.
 */
hum_status hum_moe_prepare(hum_moe *moe);

/* Bytes of a workspace (hum_workspace_create) in which forwards of up to max_m tokens run in
 * one pass: the GEMMs' stream-K locks and partial tiles, the M hidden rows the layer quantizes
 * (8-bit A) or rounds (mxfp8) for a gate/up GEMM that takes them so, the routing layout, and the
 * rows between the steps (M * top_k rows of 2I (gate/up), I (activated: 8-bit codes and their
 * scales for an 8-bit down GEMM) and H (down) 16-bit elements). A forward of more tokens works
 * through them in chunks of the tokens the workspace holds. A grouped layer: max_m is T
 * (hum_moe_forward_grouped), its rows (T, or E x T masked) hidden, and of 2I and I elements
 * between the GEMMs. A policy reload may change the size (the partial tiles); this call waits
 * for one in progress (a forward sizes its chunks without waiting, and where a reload's larger
 * partial tiles no longer fit beside its rows its expert GEMMs run whole tiles). Errors:
 * HUM_ERR_INVALID_ARG (NULL, an unprepared layer, max_m < 1 or one whose layout would pass
 * 2^31 - 1 rows or whose size would pass 2^61 bytes, the limit named). */
hum_status hum_moe_workspace_size(const hum_moe *moe, int64_t max_m, int64_t *bytes);

/*
 * out = the MoE layer of hidden (above) on `stream`, asynchronously, through `ws`; no
 * allocation, no host sync, no Lua, so it can be captured in a CUDA graph.
 * Tensors (device memory, rank 2 unless said):
 *   hidden        [M, H], the activation dtype, row stride strides[0] (0: H), inner stride 1;
 *                 16-byte aligned with a row stride of a multiple of 8 when H % 8 == 0.
 *   topk_ids      [M, top_k] int32 or int64, contiguous: global expert ids; an id outside
 *                 [0, global experts), or -1, is no expert (the slot adds nothing).
 *   topk_weights  [M, top_k] float32, contiguous: the router weights, applied once, as given
 *                 (not normalised here).
 *   expert_map    NULL (every id is a local expert) or rank 1 [global experts] int32: the
 *                 local expert of each global id (its index in hum_moe_options.experts), -1
 *                 when it is on another rank.
 *   out           [M, H], the activation dtype, row stride strides[0] (0: H).
 * With accumulate nonzero, out keeps what it holds and the layer's output is added to it (a
 * shared expert computed first), rounded once; else it is overwritten. A token none of whose
 * experts is local gets exactly 0 (or keeps out with accumulate). M == 0 does nothing.
 * Concurrency as hum_layer_forward_ws: one forward at a time per workspace. Errors:
 * HUM_ERR_INVALID_ARG naming the tensor and what was expected (nothing is launched), for a
 * grouped layer (hum_moe_forward_grouped), for a layer of quantized hidden
 * (hum_moe_forward_quantized); HUM_ERR_CUDA when a launch fails (out is then undefined: the
 * forward's earlier launches may have run).
 */
hum_status hum_moe_forward(hum_moe *moe, hum_workspace *ws, struct CUstream_st *stream, const hum_tensor *hidden,
                           const hum_tensor *topk_ids, const hum_tensor *topk_weights, const hum_tensor *expert_map,
                           const hum_tensor *out, int32_t accumulate);

/*
 * hum_moe_forward of a layer whose host quantizes hidden itself (hum_moe_options.hidden_dtype
 * float8_e4m3fn or int8): hidden [M, H] holds the codes (row stride strides[0], 0: H, in
 * elements: 16-byte aligned with a row stride of a multiple of 16 when H % 16 == 0), and
 * hidden_scale their scales in device memory: float32 [M], contiguous (one per token,
 * hidden_group 0), or [M, ceil(H / hidden_group)] with contiguous rows (row stride strides[0]
 * at least that, 0: packed), float32 for groups of 128 and e8m0 bytes for 32; float32 scales
 * 4-byte aligned. code x scale is the value the gate/up GEMM multiplies. The other tensors, out
 * included, and the errors are hum_moe_forward's, hidden_scale's named too; a layer of 16-bit
 * hidden is refused (hum_moe_forward).
 */
hum_status hum_moe_forward_quantized(hum_moe *moe, hum_workspace *ws, struct CUstream_st *stream,
                                     const hum_tensor *hidden, const hum_tensor *hidden_scale,
                                     const hum_tensor *topk_ids, const hum_tensor *topk_weights,
                                     const hum_tensor *expert_map, const hum_tensor *out, int32_t accumulate);

/*
 * The experts of a grouped layer (hum_moe_options.gemm_type a grouped type) on rows a dispatcher
 * already sent to them (DeepEP, DeepGEMM's grouped layouts; checked on the H200 by
 * tests/gpu/moe_grouped.c): each row x of local expert e becomes
 *   out row = down_e(act(gate_up_e(x)))
 * with no router weight (the host's combine applies it, as DeepEP's does), on `stream`,
 * asynchronously through `ws`: no allocation, no host sync, no Lua; CUDA-graph capturable.
 * Tensors (device memory, the activation dtype unless said; E the local experts):
 *   grouped contiguous: hidden [T, H] (row stride strides[0], 0: H), expert e's rows at
 *     layout[e] .. layout[e + 1] - 1, layout int64 [E + 1] rank 1 (nondecreasing, layout[E] <=
 *     T); out [T, H] (row stride strides[0]).
 *   grouped masked (DeepEP low-latency): hidden [E, T, H] rank 3, contiguous; expert e's first
 *     layout[e] rows, layout int32 [E] rank 1 (0 .. T); out [E, T, H], contiguous.
 * Rows outside every expert's are neither read nor written. The layout stays on the GPU: its
 * values are the host's promise, not checked. The workspace holds the forward in one pass
 * (hum_moe_workspace_size with max_m = T). T == 0 does nothing. Alignment as hum_moe_forward's.
 * Errors: HUM_ERR_INVALID_ARG naming the tensor and what was expected (nothing is launched),
 * for a layer of the indexed type (hum_moe_forward), a workspace short of T; HUM_ERR_CUDA when
 * a launch fails (out is then undefined: the forward's earlier launches may have run).
 */
hum_status hum_moe_forward_grouped(hum_moe *moe, hum_workspace *ws, struct CUstream_st *stream,
                                   const hum_tensor *hidden, const hum_tensor *layout, const hum_tensor *out);

/* Frees the layer, its GEMMs and kernels; NULL is a no-op. Not while a forward of it may still
 * run on a stream. */
void hum_moe_destroy(hum_moe *moe);

typedef struct hum_moe_info {
    int64_t experts;        /* kept on this rank (E_local) */
    int64_t global_experts; /* E_global */
    int64_t hidden;         /* H */
    int64_t intermediate;   /* I */
    int32_t top_k;
    int32_t activation;     /* hum_moe_activation */
    int32_t gate_up;        /* hum_moe_gate_up */
    hum_dtype activation_dtype;
    hum_dtype hidden_dtype; /* hum_moe_options.hidden_dtype: 0 (16-bit hidden), or the host's codes */
    int32_t hidden_group;   /* and their scales' K extent (hum_moe_options.hidden_group) */
    int32_t prepared;
    double prepare_ms;      /* wall time of hum_moe_prepare */
    hum_layer_info gate_up_gemm, down_gemm; /* the expert GEMMs once prepared (zeroed before) */
    /* once prepared, what each GEMM's A runs as and why (hum_layer_dispatch.activation; the
     * config's a_dtype is the type): the deployment's moe.activation override, else the
     * checkpoint's scheme, else 16-bit, each falling back to what the GPU runs; 8-bit A is
     * quantized per token or per group along K by the layer (the hidden rows, unless the host
     * quantized them: hidden_dtype; and the activation's output) */
    char gate_up_activation[1024];
    char down_activation[1024];
} hum_moe_info;

/* What the layer is, and once prepared how its GEMMs were. HUM_ERR_INVALID_ARG for NULL. */
hum_status hum_moe_get_info(const hum_moe *moe, hum_moe_info *out);
#ifndef HUM_CDEF
#ifdef __cplusplus
}
#endif
#endif
#endif /* HUM_H */
