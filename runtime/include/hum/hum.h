/*
 * hum.h: the whole public C API of hum, an embeddable runtime for quantized LLM GEMMs.
 *
 * Conventions that hold for every function below:
 *  - Every call returns hum_status (HUM_OK == 0). On failure, hum_last_error() returns a
 *    thread-local message naming the thing at fault (file, tensor, key) and what was expected.
 *  - No call aborts or exits on bad input; a failed call leaves no partial state behind.
 *  - Shapes are in elements. Matrices are row-major unless a stride says otherwise.
 *    GEMM naming: C[M, N] = A[M, K] * W[N, K]^T (+ bias[N]).
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

/*
 * Where libhum reads its sources: each tree it embeds (kernels/, lua/, formats/, policies/) is
 * searched first in the directories of an environment variable (`:`-separated, the first that
 * has the file wins), then in the embedded copy. A listed directory that does not exist is
 * skipped: hum_runtime_create warns about it (log level warn) and nothing fails. The
 * config's policy_paths add site policy files on top (docs/policies.md).
 */
typedef struct hum_search_path {
    const char *tree;     /* "kernels/", "lua/", "formats/", "policies/" */
    const char *variable; /* "HUM_KERNEL_PATH", "HUM_LUA_PATH", "HUM_FORMAT_PATH", "HUM_POLICY_PATH" */
    const char *dirs;     /* the variable's value, read at the call; NULL when unset or empty */
} hum_search_path;
int32_t hum_search_path_count(void);
/* HUM_ERR_INVALID_ARG for an index outside 0 .. hum_search_path_count() - 1 or a NULL out. */
hum_status hum_search_path_get(int32_t index, hum_search_path *out);

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

/* --- data types: owned by the quantization core (runtime/src/quant/dtype*.c) --- */
/* HUM-SECTION dtype */
/*
 * Names, widths and conversions of every hum_dtype. Format facts (OCP 8-bit floating point
 * spec v1.0 for float8_e4m3fn / float8_e5m2; OCP Microscaling (MX) spec v1.0 for
 * float8_e8m0, float4_e2m1, float6_e3m2, float6_e2m3; IEEE 754 for float16 / float32 /
 * float64; bfloat16 = the top 16 bits of float32):
 *   value = (-1)^s * 2^(e - bias) * (1 + m / 2^M) for e > 0, (-1)^s * 2^(1 - bias) * m / 2^M
 *   for e == 0 (subnormal), bias = 2^(E-1) - 1. Special codes per hum_dtype_special:
 *   IEEE: e all ones is inf (m == 0) or NaN; FN (e4m3fn): only e and m all ones is NaN
 *   (0x7F, 0xFF), so the largest finite is 448; FINITE: every code is a number (e2m1 max 6,
 *   e3m2 max 28, e2m3 max 7.5); E8M0: no sign, value 2^(code - 127), 0xFF is NaN.
 *   Negative zero is a distinct code in every signed float format and is kept.
 */

/* Builds a dtype code; returns HUM_DTYPE_INVALID unless the combination is one hum handles:
 * UINT/INT with bits 1..8, 16, 32 or 64 (exp = man = 0, special IEEE); FLOAT with
 * bits == 1 + exp + man and either FINITE with exp >= 1, bits <= 8 (generic eXmY), or one of
 * float16, bfloat16, float32, float64 (IEEE), float8_e5m2 (IEEE), float8_e4m3fn (FN);
 * UFLOAT only as float8_e8m0 (bits 8, exp 8, man 0, E8M0). */
hum_dtype hum_dtype_make(hum_dtype_kind kind, int32_t bits, int32_t exp_bits, int32_t man_bits,
                         hum_dtype_special special);

/*
 * Parses a dtype name (case-sensitive). Accepted spellings:
 *   uint1..uint8, uint16, uint32, uint64, int1..int8, int16, int32, int64;
 *   float16 | half | fp16, bfloat16 | bf16, float32 | float | fp32, float64 | double | fp64;
 *   float8_e8m0 | float8_e8m0fnu | e8m0 | e8m0fnu | ue8m0;
 *   eXmY, with optional prefix "floatB_" or "floatB" (B must equal 1 + X + Y) and optional
 *   suffix "fn": (4,3) is float8_e4m3fn, (5,2) float8_e5m2, any other X >= 1, 1+X+Y <= 8 the
 *   finite generic type (e2m1 = float4_e2m1, e3m2, e2m3, e1m2, float3e1m1 as Humming spells it);
 *   float8_e4m3_finite, float8_e5m2_finite: the all-finite readings of those 8-bit layouts.
 * Errors: HUM_ERR_INVALID_ARG (NULL) or HUM_ERR_UNSUPPORTED (unknown name, named in the message).
 */
hum_status hum_dtype_parse(const char *name, hum_dtype *out);
/* Canonical name ("uint4", "float8_e4m3fn", "float4_e2m1", "float5_e2m2", ...); the static
 * string "invalid" for a code hum_dtype_make would not build. hum_dtype_parse(name) gives the
 * code back. */
const char *hum_dtype_name(hum_dtype t);
/* Width in bits; 0 for an invalid code. */
int32_t hum_dtype_bits(hum_dtype t);
/* 1 for the weight dtypes hum quantizes and runs (standard weights, layer SPECs): uint1 ..
 * uint8 and floats of 8 bits or fewer; else 0. */
int32_t hum_dtype_is_weight(hum_dtype t);
/* 1 for the activation dtypes of dense layers (and the param dtypes of standard weights):
 * float16 and bfloat16; else 0. */
int32_t hum_dtype_is_activation(hum_dtype t);
/* 1 for the scale dtypes of standard weights: float16, bfloat16, float32, float8_e4m3fn,
 * float8_e5m2, float8_e8m0; else 0. */
int32_t hum_dtype_is_scale(hum_dtype t);
/* Bytes of one code in the arrays hum_dtype_encode/decode use: 1 for widths <= 8, else
 * bits / 8; 0 for an invalid code. */
int32_t hum_dtype_code_size(hum_dtype t);
/* Largest finite value (ints: 2^b - 1 or 2^(b-1) - 1; e4m3fn 448, e5m2 57344, e2m1 6,
 * e8m0 2^127, ...); 0 for an invalid code. */
double hum_dtype_max_finite(hum_dtype t);

/*
 * Converts `count` codes to float64, bit-exactly. codes: one uint8 per value for widths <= 8
 * (the value in the low bits; higher bits must be zero), uint16 for 16, uint32 for 32,
 * int64/uint64 for 64-bit types. Ints: INT codes are two's complement in `bits` bits.
 * Errors: HUM_ERR_INVALID_ARG (invalid dtype, NULL with count > 0, negative count, a code
 * with bits set above the width: the message names its index).
 */
hum_status hum_dtype_decode(hum_dtype t, const void *codes, int64_t count, double *out);
/*
 * Converts `count` float64 values to codes (layout as hum_dtype_decode), rounding to nearest,
 * ties to even (IEEE 754 roundTiesToEven), for floats and ints alike. Out of range:
 *  - IEEE floats (float16, bfloat16, float32, e5m2): overflow to +-inf as IEEE rounding does
 *    (a value at or beyond max + half an ulp); NaN in gives a quiet NaN of the same sign.
 *  - float8_e4m3fn: saturates to +-448 (inf included); NaN in gives 0x7F / 0xFF by sign.
 *  - FINITE eXmY and ints: saturate to the largest / smallest value; NaN in is an error.
 *  - float8_e8m0: positive values round to nearest in the linear domain with ties to the
 *    even code (the OCP MX spec defines the encoding but no rounding from other formats;
 *    this is IEEE roundTiesToEven on a format with no mantissa bits and no subnormals) and
 *    saturate to 2^-127 .. 2^127 (+inf included); NaN gives 0xFF; zero and negative values
 *    are errors (the format has neither).
 * On error (HUM_ERR_INVALID_ARG, naming the first offending index and value) nothing is
 * written.
 */
hum_status hum_dtype_encode(hum_dtype t, const double *in, int64_t count, void *codes);
/* Fast paths to and from float32 for large arrays (float16 / bfloat16 by bit manipulation,
 * <= 8-bit types by table); same rounding and errors as the float64 functions. */
hum_status hum_dtype_to_float(hum_dtype t, const void *codes, int64_t count, float *out);
hum_status hum_dtype_from_float(hum_dtype t, const float *in, int64_t count, void *codes);

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
/* Bit streams, reference math, standard format: owned by the quantization core            */
/* ====================================================================================== */
/* HUM-SECTION bitstream */
/*
 * Bit streams: values of width 1..8 bits, one uint8 each in memory, packed into int32 words
 * LSB-first (little-endian words, as safetensors stores them). Arrays are [batch][rows][cols]
 * (a 2-D array has batch 1), row-major and contiguous; packing runs along one dimension and
 * every line along it starts at a new word.
 */
typedef enum hum_pack_dim {
    /* along the last dim: values [B][R][C] <-> words [B][R][W(C)]; the standard weight
     * (along K), compressed-tensors weight_packed */
    HUM_PACK_ALONG_COLS = 0,
    /* along dim -2: values [B][R][C] <-> words [B][W(R)][C]; standard and compressed-tensors
     * zero points (along N), GPTQ qweight [K*b/32][N] (along K) */
    HUM_PACK_ALONG_ROWS = 1
} hum_pack_dim;

typedef enum hum_pack_layout {
    /* value i at bits [i*b, (i+1)*b) of the line's stream; a value that crosses a word
     * boundary keeps its low part in the lower word. W(L) = ceil(L*b / 32). GPTQ (3-bit
     * included), compressed-tensors >= 0.18, the standard format. */
    HUM_PACK_DENSE = 0,
    /* floor(32/b) values per word, value i at bits (i % per) * b of word i / per, the high
     * bits zero. W(L) = ceil(L / floor(32/b)). compressed-tensors <= 0.17 (identical to DENSE
     * for b = 1, 2, 4, 8). */
    HUM_PACK_WORD_ALIGNED = 1
} hum_pack_layout;

/* Words W(length) that `length` values of width `bits` take in one line; -1 when bits is
 * outside 1..8, length is negative or layout unknown. */
int64_t hum_packed_words(int64_t length, int32_t bits, hum_pack_layout layout);
/* Packs values [shape[0]][shape[1]][shape[2]] into `words` (sized for the packed shape
 * above; unused high bits are written as zero). Errors: HUM_ERR_INVALID_ARG for bits outside
 * 1..8, a negative shape, NULL pointers, or a value >= 2^bits (the message names its index;
 * nothing is written). */
hum_status hum_pack_bits(const uint8_t *values, const int64_t shape[3], int32_t bits, hum_pack_dim dim,
                         hum_pack_layout layout, int32_t *words);
/* The inverse: fills values [shape[0]][shape[1]][shape[2]] from the packed words. Bits past
 * the last value of a line, and the unused high bits of WORD_ALIGNED words, are ignored. */
hum_status hum_unpack_bits(const int32_t *words, const int64_t shape[3], int32_t bits, hum_pack_dim dim,
                           hum_pack_layout layout, uint8_t *values);

/*
 * AutoAWQ GEMM order (checkpoint-formats.md 2.2; AutoAWQ awq/utils/packing_utils.py): in each
 * group of 8 consecutive 4-bit values along N (one int32 word), nibble slot i holds logical
 * value AWQ_ORDER[i] = {0, 2, 4, 6, 1, 3, 5, 7}[i]. Interleave maps logical order to slot
 * order (slots[8g + i] = logical[8g + AWQ_ORDER[i]]), deinterleave undoes it (the same as
 * taking slots[8g + {0, 4, 1, 5, 2, 6, 3, 7}[j]]). count must be a multiple of 8; `in` and
 * `out` may be the same array. Errors: HUM_ERR_INVALID_ARG (count, NULL).
 */
hum_status hum_awq_interleave(const uint8_t *logical, int64_t count, uint8_t *slots);
hum_status hum_awq_deinterleave(const uint8_t *slots, int64_t count, uint8_t *logical);

/*
 * Two 4-bit codes per byte (FP4 e2m1 and int4 byte arrays). LOW_FIRST: element 2i in the
 * low nibble of byte i, 2i+1 in the high nibble: ModelOpt NVFP4 / MXFP4, compressed-tensors
 * nvfp4- and mxfp4-pack-quantized, gpt-oss *_blocks (checkpoint-formats.md 3.6, 4.3, 6.2).
 * HIGH_FIRST: element 2i in the high nibble, as PTX cvt.rn.satfinite.e2m1x2 writes it
 * (humming-digest.md section 9). count is the number of 4-bit values; bytes hold
 * ceil(count / 2), an odd count leaving the last byte's second nibble zero.
 * Errors: HUM_ERR_INVALID_ARG (negative count, NULL, a value >= 16 when packing: named).
 */
typedef enum hum_nibble_order { HUM_NIBBLE_LOW_FIRST = 0, HUM_NIBBLE_HIGH_FIRST = 1 } hum_nibble_order;
hum_status hum_nibbles_unpack(const uint8_t *bytes, int64_t count, hum_nibble_order order, uint8_t *values);
hum_status hum_nibbles_pack(const uint8_t *values, int64_t count, hum_nibble_order order, uint8_t *bytes);


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

typedef struct hum_standard_weight {
    int64_t num_experts;    /* 0 for a dense layer */
    int64_t n, k;           /* logical output and input features (unpadded) */
    hum_dtype weight_dtype; /* HUM_DTYPE_UINT1..UINT8 (offset binary, see above) or an FP eXmY code */
    hum_dtype param_dtype;  /* float16 or bfloat16: the checkpoint's compute dtype (bias, 16-bit scales) */
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
    /* act-order: int32 (K) or data NULL. Column j of `weight` (and of scales/zero points, via
     * j / group_size) is column k_perm[j] of the checkpoint; activations are gathered to match:
     * A'[:, j] = A[:, k_perm[j]]. */
    hum_tensor k_perm;
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
 *    GROUP, GROUP_TENSOR and BLOCK scales each rank must hold whole groups: K / world a
 *    multiple of group_size, and with act-order (k_perm) every group's channels inside one
 *    rank's columns (the standard weight has no partial groups; GPTQ act-order checkpoints
 *    whose g_idx scatters groups over K cannot be split along K and are refused, naming the
 *    group). The shard's k_perm maps its columns to its own input slice (NULL when that is
 *    the identity).
 *  - experts (expert parallelism, MoE weights only): the checkpoint's expert ids this rank
 *    holds, in the order the shard stores them (any subset, no repeats; the host's expert
 *    map sends expert experts[i] to local expert i). Combines with COLUMN / ROW.
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

/* HUM-SECTION reference */
/*
 * Reference math on the standard format: host, float64, plain loops. This is what kernel
 * tests and format-converter tests compare against; it is not meant to be fast.
 */

/* Checks `w` against the rules of hum_standard_weight above: N, K >= 1; weight_dtype
 * uint1..uint8 or a float of 8 bits or fewer; param_dtype float16 or bfloat16; every tensor
 * in host memory, contiguous, of the dtype and shape its scale type gives; group_size >= 1
 * exactly for GROUP, GROUP_TENSOR and BLOCK (else 0), group_size_n >= 1 exactly for BLOCK;
 * BLOCK scales float32 and without a zero point; zero points only with integer weights;
 * global_scale (float32, (1) or (E)) present for TENSOR and GROUP_TENSOR; k_perm a
 * permutation of 0..K-1. HUM_ERR_INVALID_ARG naming the field, what was expected and what
 * was found. */
hum_status hum_standard_validate(const hum_standard_weight *w);

/* out[N][K] (float64) = the dequantized weight of `expert` (0 for a dense layer) in
 * checkpoint column order: stored column j lands in column k_perm[j]. Evaluated as
 * ((q - z) * s) * global for ints and (decode(q) * s) * global for FP weights, whose codes
 * are read as all-finite (e4m3fn 0x7F is 480, e5m2 0x7C is 65536), as the kernels read them.
 * Errors: those of hum_standard_validate; HUM_ERR_INVALID_ARG for NULL out or an expert
 * outside [0, max(num_experts, 1)). */
hum_status hum_reference_dequant(const hum_standard_weight *w, int64_t expert, double *out);
/* c[M][N] = a[M][K] * dequant(W)^T + bias[N] (when present), float64, with `a` in checkpoint
 * column order (act-order needs no gather by the caller). M may be 0. Errors: as
 * hum_reference_dequant, plus HUM_ERR_INVALID_ARG for M < 0 or NULL a / c with M > 0. */
hum_status hum_reference_gemm(const hum_standard_weight *w, int64_t expert, const double *a, int64_t m, double *c);

typedef enum hum_zero_point_kind {
    HUM_ZERO_POINT_NONE = 0,  /* symmetric ints (implicit midpoint 2^(b-1)) and FP weights */
    HUM_ZERO_POINT_INT = 1,   /* asymmetric: integer zero point in [0, 2^b), packed along N */
    HUM_ZERO_POINT_FLOAT = 2  /* asymmetric: zero point in param_dtype */
} hum_zero_point_kind;

typedef struct hum_quant_spec {
    int64_t num_experts;   /* 0: w is [N][K]; E > 0: w is [E][N][K] */
    hum_dtype weight_dtype; /* uint1..uint8, or a float of <= 8 bits (float8_e4m3fn, float8_e5m2,
                             * float4_e2m1, float6_e3m2, float6_e2m3, any finite eXmY) */
    hum_dtype param_dtype; /* float16 or bfloat16 */
    hum_scale_type scale_type;
    int64_t group_size;    /* K extent of a scale: GROUP, GROUP_TENSOR, BLOCK; else 0 */
    int64_t group_size_n;  /* N extent of a scale: BLOCK; else 0 */
    hum_dtype scale_dtype; /* HUM_DTYPE_INVALID: param_dtype (float32 for BLOCK); unused for TENSOR */
    hum_zero_point_kind zero_point;
    const float *bias;     /* [E][N] or [N], or NULL; stored rounded to param_dtype */
    const int32_t *k_perm; /* act-order: a permutation of 0..K-1, or NULL. Stored column j is
                            * column k_perm[j] of w, and groups run along the stored order
                            * (GPTQ act-order: groups formed in the permuted order). */
} hum_quant_spec;

/*
 * The reference quantizer used by tests and `hum demo`: float weights in, a standard weight
 * out (owned by `out`; release with hum_standard_free). Each scale cell (group_size columns
 * of one row for GROUP / GROUP_TENSOR; a row for CHANNEL; group_size_n x group_size for BLOCK;
 * the whole expert for TENSOR) gets a range r from its values:
 *   int, no zero point:  r = amax / (2^(b-1) - 1/2), codes around the midpoint 2^(b-1) (the
 *                        GPTQ symmetric scale 2 * amax / (2^b - 1), checkpoint-formats.md 1.4);
 *   int with zero point: r = (max(hi, 0) - min(lo, 0)) / (2^b - 1) (GPTQ / AWQ asymmetric);
 *   FP weights:          r = amax / max_finite(weight_dtype).
 * The stored scale is r rounded to scale_dtype to nearest, moved one code away from zero when
 * that rounding made it smaller, so rounding the scale never clips: int weights then satisfy
 * |w - dequant(w)| <= S / 2 with S = s * global (plus the float zero point's own rounding).
 * float8_e8m0 scales with FP weights follow the OCP MX spec instead: s = 2^(floor(log2(amax))
 * - emax_elem), emax_elem the exponent of the element type's largest value (2 for e2m1, 8 for
 * e4m3fn), and elements past the element range saturate. A cell of zeros gets scale 1.
 * TENSOR: the one cell's scale, rounded up to float32, is global_scale. GROUP_TENSOR:
 * global_scale = max over the expert's cells of r / R, rounded up to float32, with R =
 * max_finite(scale_dtype) when that is at most 65536 (e4m3fn 448, e5m2, float16) and 1
 * otherwise; each cell stores r / global_scale. With e2m1 weights, e4m3fn scales and group 16
 * this is NVFP4 as ModelOpt writes it (global = amax / (6 * 448), checkpoint-formats.md 4.3).
 * Codes, with S = s * global: int q = clamp(rne(w / S) + z, 0, 2^b - 1), z = the midpoint or
 * clamp(rne(-min(lo, 0) / S), 0, 2^b - 1); float zero point zf = -min(lo, 0) / S in
 * param_dtype and q = clamp(rne(w / S + zf), 0, 2^b - 1); FP q = encode(clamp(w / S, +-max)).
 * Errors (out is left zeroed): HUM_ERR_INVALID_ARG for NULL pointers, N or K < 1, a weight or
 * bias that is not finite (named by index), a k_perm that is not a permutation, group sizes
 * that do not match the scale type, a bad dtype; HUM_ERR_UNSUPPORTED for a zero point with FP
 * weights or with BLOCK / TENSOR scales; HUM_ERR_OUT_OF_MEMORY.
 */
hum_status hum_quantize_reference(const float *w, int64_t n, int64_t k, const hum_quant_spec *spec,
                                  hum_standard_weight *out);


/* ====================================================================================== */
/* safetensors and checkpoints                                                             */
/* ====================================================================================== */
/* HUM-SECTION safetensors */
/*
 * safetensors container (huggingface/safetensors README "Format", reference parser
 * safetensors/src/tensor.rs): bytes 0..7 hold N, the header length (u64 little-endian); bytes
 * 8..8+N a UTF-8 JSON object {"<name>": {"dtype": "F16", "shape": [..], "data_offsets": [b, e]},
 * "__metadata__": {"<key>": "<string>"}} (may be right-padded with spaces); then the byte buffer
 * that data_offsets index. The reader enforces the reference rules: N <= 100,000,000 and inside
 * the file; UTF-8, well-formed JSON; __metadata__ a string map; no duplicate names; known dtypes; shapes
 * of non-negative integers whose byte size numel * bits / 8 is whole and does not overflow;
 * e - b equal to that size; tensors tiling the buffer exactly (no overlap, no hole) up to the end
 * of the file. Every violation is HUM_ERR_FORMAT naming the file, the tensor and the problem.
 *
 * dtype strings and their hum codes: BOOL (uint8), U8, I8, I16, U16, I32, U32, I64, U64, F16,
 * BF16, F32, F64, F8_E4M3 (float8_e4m3fn), F8_E5M2, F8_E8M0 (float8_e8m0fnu), F4 (float4_e2m1,
 * 4 bits per element), F6_E2M3, F6_E3M2 (6 bits per element); C64, F8_E4M3FNUZ and F8_E5M2FNUZ
 * are accepted with dtype HUM_DTYPE_INVALID (hum has no code for them). Sub-byte data is handed
 * out as raw bytes: the format does not fix the order of elements inside a byte, and no
 * converter reads F4/F6 tensors (real checkpoints store FP4 pairs and E8M0 scales as U8).
 */
enum { HUM_SAFETENSORS_MAX_RANK = 8 };

typedef struct hum_safetensors_tensor {
    const char *name;
    const char *dtype_name; /* the safetensors dtype string, e.g. "F8_E4M3" */
    hum_dtype dtype;        /* see the table above */
    int32_t rank;           /* 0 for a scalar */
    int64_t shape[8];       /* HUM_SAFETENSORS_MAX_RANK */
    const void *data;       /* row-major little-endian bytes, read-only, ANY alignment */
    int64_t nbytes;
    const char *file;       /* path of the file that holds it */
} hum_safetensors_tensor;

/* One .safetensors file, memory-mapped. Tensor views stay valid until close. */
typedef struct hum_safetensors hum_safetensors;
/* HUM_ERR_IO when the file cannot be opened or mapped; HUM_ERR_FORMAT on any rule above. */
hum_status hum_safetensors_open(const char *path, hum_safetensors **out);
void hum_safetensors_close(hum_safetensors *st);
int64_t hum_safetensors_count(const hum_safetensors *st);
/* Tensors in name order (strcmp); HUM_ERR_INVALID_ARG for an index outside [0, count). */
hum_status hum_safetensors_get(const hum_safetensors *st, int64_t index, hum_safetensors_tensor *out);
/* HUM_ERR_FORMAT naming the file when there is no tensor `name`. */
hum_status hum_safetensors_find(const hum_safetensors *st, const char *name, hum_safetensors_tensor *out);
/* 1 when the file has a tensor `name`, else 0; sets no error. */
int32_t hum_safetensors_has(const hum_safetensors *st, const char *name);
/* Value of `key` in __metadata__, or NULL. */
const char *hum_safetensors_metadata(const hum_safetensors *st, const char *key);

/* Bits per element and hum code of a safetensors dtype string; HUM_ERR_FORMAT if unknown. */
hum_status hum_safetensors_dtype(const char *dtype_name, int32_t *bits, hum_dtype *dtype);

/*
 * Writes a .safetensors file that the reference parser accepts: header padded with spaces to a
 * multiple of 8, tensors laid out by descending element size then name (so each is aligned to its
 * element size), written to a temporary file and renamed into place. For each tensor: name,
 * rank, shape and data are read; dtype_name if non-NULL, else the name of `dtype` (float16 ->
 * "F16", float8_e4m3fn -> "F8_E4M3", uint8 -> "U8", ...); nbytes and file are ignored (the size
 * comes from shape and dtype). metadata: NULL or a NULL-terminated list of key, value strings.
 * HUM_ERR_INVALID_ARG for a duplicate or empty name, a dtype with no safetensors name or a bad
 * shape; HUM_ERR_IO naming the path when writing fails (nothing is left behind).
 */
hum_status hum_safetensors_write(const char *path, const hum_safetensors_tensor *tensors, int64_t count,
                                 const char *const *metadata);

/*
 * A checkpoint: a directory holding config.json (optional), hf_quant_config.json (ModelOpt),
 * quantize_config.json / quant_config.json (AutoGPTQ, AutoAWQ) and its weights, either
 * model.safetensors.index.json ({"weight_map": {tensor: shard file}}) with the shards it names, or
 * every *.safetensors file in the directory; or a single .safetensors file (config files are then
 * read from its directory). Tensor names are unique across files (HUM_ERR_FORMAT naming both files
 * otherwise); every weight_map entry must exist in the shard it names.
 */
typedef struct hum_checkpoint hum_checkpoint;
hum_status hum_checkpoint_open(const char *path, hum_checkpoint **out);
void hum_checkpoint_close(hum_checkpoint *ckpt);
/* The path it was opened with. */
const char *hum_checkpoint_path(const hum_checkpoint *ckpt);
int64_t hum_checkpoint_tensor_count(const hum_checkpoint *ckpt);
/* Tensors of all files in name order. */
hum_status hum_checkpoint_tensor(const hum_checkpoint *ckpt, int64_t index, hum_safetensors_tensor *out);
/* HUM_ERR_FORMAT naming the checkpoint when absent. */
hum_status hum_checkpoint_find(const hum_checkpoint *ckpt, const char *name, hum_safetensors_tensor *out);
/* 1 when the checkpoint has a tensor `name`, else 0; sets no error. */
int32_t hum_checkpoint_has(const hum_checkpoint *ckpt, const char *name);
/* Text of a config file of the checkpoint ("config.json", "hf_quant_config.json",
 * "quantize_config.json", "quant_config.json"), already checked to be a JSON object; NULL when
 * the checkpoint has no such file. */
const char *hum_checkpoint_config(const hum_checkpoint *ckpt, const char *file_name);

/*
 * Host data moves used by the format converters (the formats/ Lua files call them through the FFI, so no
 * Lua loop ever touches tensor elements). Element sizes are in bytes (1, 2, 4 or 8); every
 * function checks its arguments and fails with HUM_ERR_INVALID_ARG before writing anything.
 */
/* Allocates a zeroed, contiguous host tensor with malloc (hum_standard_free and
 * hum_host_tensor_free release it). Element size: 1 byte for dtypes of 8 bits or fewer (one code
 * per byte), else bits / 8. rank 0..4; shape entries >= 0. */
hum_status hum_host_tensor_alloc(hum_tensor *t, hum_dtype dtype, int32_t rank, const int64_t *shape);
/* Frees a tensor from hum_host_tensor_alloc and zeroes the struct; safe on a zeroed struct. */
void hum_host_tensor_free(hum_tensor *t);
/* dst[b][c][r] = src[b][r][c] for a [batch][rows][cols] array. */
hum_status hum_host_transpose(const void *src, void *dst, int64_t batch, int64_t rows, int64_t cols,
                              int32_t elem_bytes);
/* dst[r][j] = src[r][index[j]] for j < dst_cols; every index must lie in [0, src_cols). */
hum_status hum_host_gather_columns(const void *src, void *dst, int64_t rows, int64_t src_cols, int64_t dst_cols,
                                   const int32_t *index, int32_t elem_bytes);
/* Copies `rows` rows of src_row_bytes to rows of dst_row_bytes (>= src_row_bytes), zero-filling
 * the tail of each: turns byte rows (fp8 codes, fp4 pairs) into whole int32 words per row. */
hum_status hum_host_copy_rows(const void *src, int64_t src_row_bytes, void *dst, int64_t dst_row_bytes, int64_t rows);
/* codes[i] = (codes[i] + delta) mod 2^bits (bits 1..8): v1 GPTQ zero points (+1), two's
 * complement int codes to offset binary (+2^(bits-1)), BitNet's {0,1,2} to uint2 {1,2,3}. */
hum_status hum_host_add_codes(uint8_t *codes, int64_t count, int32_t delta, int32_t bits);
/* Smallest and largest value of an integer array (dtype uint8/int8/uint16/int16/uint32/int32/int64). */
hum_status hum_host_int_range(const void *data, hum_dtype dtype, int64_t count, int64_t *min, int64_t *max);
/*
 * act-order: from g_idx (int32 [K], the group of each input channel, GPTQ/compressed-tensors)
 * builds k_perm, the stable sort of the channels by group, so that standard column j is
 * checkpoint column k_perm[j] and column j belongs to group j / group_size. Requires every group
 * id in [0, ceil(K / group_size)) and each group to hold exactly group_size channels (the last
 * one the remainder), which is what GPTQ's act-order produces (auto_gptq gptq.py: groups of
 * group_size consecutive columns in the permuted order); HUM_ERR_FORMAT naming the first
 * offending channel or group otherwise. *identity is 1 when k_perm is the identity.
 */
hum_status hum_host_group_order(const int32_t *g_idx, int64_t k, int64_t group_size, int32_t *k_perm,
                                int32_t *identity);

/*
 * Checkpoint formats -> the standard format. The format is detected from the config files
 * (lua/hum/formats.lua) and converted by formats/<format>.lua: gptq (v1 "gptq" stores zero - 1,
 * "gptq_v2" the zero; act-order g_idx becomes k_perm), awq (GEMM), compressed-tensors
 * (pack-quantized in the <= 0.17 and >= 0.18 layouts, int-, float-, naive-quantized,
 * nvfp4-pack-quantized, mxfp4-pack-quantized), modelopt (FP8, NVFP4), fp8 (block-wise
 * weight_scale_inv), mxfp4 (gpt-oss *_blocks / *_scales experts), bitnet. Facts per format:
 * shared/reference/checkpoint-formats.md and the comments of each formats/ file.
 * A layer is named by its module path ("model.layers.0.mlp.down_proj"); gpt-oss experts by
 * "model.layers.0.mlp.experts.gate_up_proj" (rows in checkpoint order: gate and up interleaved).
 * Checkpoints with one module per expert ("...experts.<i>.<proj>", indices 0..E-1) list them
 * as one MoE layer "...experts.*.<proj>", loaded with every tensor stacked along E (experts
 * must share dtypes, scale type, group sizes, zero-point kind and act-order permutation); each
 * expert also loads alone by its own name.
 */
typedef struct hum_layer_summary {
    char name[512];
    char format[64];        /* "gptq", "gptq_v2", "awq", "compressed-tensors/pack-quantized", ... */
    hum_dtype weight_dtype; /* of the standard weight: uint4, float8_e4m3fn, float4_e2m1, ... */
    int32_t bits;
    char scale[32];         /* "group", "channel", "tensor", "block 128x128", "group+tensor" */
    int64_t group_size;     /* K extent of a scale; 0 for channel and tensor scales */
    int32_t symmetric;      /* 1: no zero point (ints use the midpoint 2^(bits-1)) */
    int32_t act_order;      /* 1: g_idx permutes K */
    int64_t n, k, num_experts;
    /* "" when the layer converts as far as the listing checks (shapes, dtypes, config); else why
     * it cannot, as hum_checkpoint_load_layer would say it (HUM_ERR_FORMAT / HUM_ERR_UNSUPPORTED),
     * cut to fit. Such a layer is still listed, with its name and whatever else is zero/"". One
     * layer that cannot be converted does not fail the listing; a checkpoint whose format or
     * config cannot be read at all still does. */
    char error[512];
} hum_layer_summary;

typedef struct hum_layer_list {
    hum_layer_summary *items;
    int64_t count, capacity;
} hum_layer_list;
/* Appends a copy of *item (used by the Lua listing). */
hum_status hum_layer_list_append(hum_layer_list *list, const hum_layer_summary *item);
void hum_layer_list_free(hum_layer_list *list);

/* What C hands the Lua converters (lua/hum/formats.lua). */
typedef struct hum_format_call {
    const hum_checkpoint *checkpoint;
    const char *layer_name;      /* load */
    hum_standard_weight *weight; /* load: filled */
    hum_layer_list *list;        /* list: appended to */
    const hum_shard *shard;      /* load: NULL, or a shard whose experts the converter may keep alone */
    int32_t experts_kept;        /* load, out: 1 when weight holds only shard->experts, in their order */
    char *names;                 /* names: the known formats, ", "-separated */
    size_t names_cap;
} hum_format_call;

/* The checkpoint formats the runtime's formats/ dispatch converts, by their quant_method names,
 * ", "-separated ("awq, bitnet, compressed-tensors, ..."), into out. HUM_ERR_INVALID_ARG for
 * NULL or when cap is too small. */
hum_status hum_runtime_formats(hum_runtime *rt, char *out, size_t cap);

/* Every quantized layer of the checkpoint, in name order (*out is reset first). Errors:
 * HUM_ERR_FORMAT for an unknown or self-contradictory checkpoint (naming the key or tensor). */
hum_status hum_checkpoint_list_layers(hum_runtime *rt, const hum_checkpoint *ckpt, hum_layer_list *out);
/* Converts one layer to the standard format. *out must be zeroed; on failure it is left zeroed.
 * Errors: HUM_ERR_FORMAT (missing tensor, wrong dtype or shape, contradictory config, values
 * outside their range), HUM_ERR_UNSUPPORTED (a valid layout hum does not convert, named). */
hum_status hum_checkpoint_load_layer(hum_runtime *rt, const hum_checkpoint *ckpt, const char *layer_name,
                                     hum_standard_weight *out);
/* hum_checkpoint_open + hum_checkpoint_load_layer + close. */
hum_status hum_layer_load_standard(hum_runtime *rt, const char *checkpoint_path, const char *layer_name,
                                   hum_standard_weight *out);
/* One rank's shard of a checkpoint layer: hum_standard_shard of it (shard NULL: all of it). A MoE
 * layer stored as one module per expert ("...experts.<i>.<proj>") converts only the modules of
 * the experts shard->experts lists; fused expert tensors are converted whole, then cut.
 * Errors: those of hum_layer_load_standard and hum_standard_shard (a bad expert id of a
 * per-expert layer is HUM_ERR_INVALID_ARG before anything is converted). */
hum_status hum_layer_load_shard(hum_runtime *rt, const char *checkpoint_path, const char *layer_name,
                                const hum_shard *shard, hum_standard_weight *out);

/*
 * Checkpoint writers: standard weights out as the tools write them, for hum demo and tests.
 * `dir` is created if missing; it receives model.safetensors (every layer's tensors under
 * "<layer name>.<tensor>", plus bias when the weight has one) and config.json with
 * quantization_config; a GPTQ checkpoint also gets AutoGPTQ's quantize_config.json.
 *   GPTQ (checkpoint-formats.md 1): qweight I32 [K*b/32, N], qzeros I32 [G, N*b/32] ("gptq"
 *   stores zero - 1, "gptq_v2" the zero), scales [G, N], g_idx I32 [K]. Needs dense uint2, 3, 4
 *   or 8 weights with GROUP (or CHANNEL: group_size -1) float16/bfloat16 scales, an integer zero
 *   point or none (sym), K*b and N*b multiples of 32 (AutoGPTQ sizes by integer division), and
 *   the same bits, group size and sym for every layer. act-order (k_perm) is written as g_idx
 *   with desc_act true. v1 cannot hold a zero point of 0 (it would store -1): use gptq_v2.
 *   AWQ GEMM (section 2): qweight I32 [K, N/8], qzeros I32 [G, N/8] in the nibble order
 *   0,2,4,6,1,3,5,7, scales [G, N]. Needs uint4 weights, GROUP scales with K a multiple of the
 *   group size (or CHANNEL), N a multiple of 8, no act-order; a weight without zero point gets
 *   the midpoint 8 written as its zero point.
 * Errors: HUM_ERR_INVALID_ARG (NULL, count < 1, an invalid standard weight),
 * HUM_ERR_UNSUPPORTED (a weight the format cannot hold: named with the reason), HUM_ERR_IO.
 * Nothing is written unless every layer can be.
 */
typedef struct hum_checkpoint_write_options {
    int32_t gptq_v2;          /* GPTQ: 1 writes checkpoint_format "gptq_v2", 0 "gptq" (v1) */
    const char *architecture; /* config.json "architectures"[0]; NULL: "LlamaForCausalLM" */
} hum_checkpoint_write_options;
hum_status hum_checkpoint_write_gptq(const char *dir, const char *const *layer_names,
                                     const hum_standard_weight *weights, int32_t count,
                                     const hum_checkpoint_write_options *opts);
hum_status hum_checkpoint_write_awq(const char *dir, const char *const *layer_names,
                                    const hum_standard_weight *weights, int32_t count,
                                    const hum_checkpoint_write_options *opts);

/* ====================================================================================== */
/* CUDA driver and devices                                                                 */
/* ====================================================================================== */
/* HUM-SECTION device */
/*
 * The CUDA driver is loaded at run time (libcuda.so.1, or the file the environment variable
 * HUM_CUDA_DRIVER names, read once at the first device call); libhum never links it. Without a usable driver every function of this
 * section and of "Modules and launches" returns HUM_ERR_NO_DEVICE with "no CUDA driver" in the
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

/* Number of GPUs, >= 1; HUM_ERR_NO_DEVICE with *count = 0 when there is none. */
hum_status hum_device_count(int32_t *count);
/* Properties of device `ordinal`. HUM_ERR_NO_DEVICE; HUM_ERR_INVALID_ARG for an ordinal out of
 * range (the message gives the valid range); HUM_ERR_CUDA if the driver fails a query. */
hum_status hum_device_query(int32_t ordinal, hum_device_info *out);

/* Device memory in the primary context of `ordinal` (cuMemAlloc: 256-byte aligned). `bytes` 0
 * is refused (HUM_ERR_INVALID_ARG); HUM_ERR_OUT_OF_MEMORY when the device is full. */
hum_status hum_device_alloc(int32_t ordinal, size_t bytes, void **dptr);
/* Frees memory from hum_device_alloc; NULL is a no-op. HUM_ERR_INVALID_ARG for a pointer the
 * driver does not know. */
hum_status hum_device_free(void *dptr);
/* Copies and fill of `bytes` bytes; dst/src are device pointers (from hum_device_alloc or the
 * host's own cuMemAlloc) on the device side and ordinary host memory on the other. Synchronous:
 * on return the destination holds the data (they run on, and wait for, the legacy default stream
 * of the pointer's context), so work on any stream may use it next. Not for the hot path.
 * 0 bytes is a no-op. HUM_ERR_INVALID_ARG for NULL or an unknown device pointer. */
hum_status hum_memcpy_htod(void *dst, const void *src, size_t bytes);
hum_status hum_memcpy_dtoh(void *dst, const void *src, size_t bytes);
hum_status hum_memset_d8(void *dst, uint8_t value, size_t bytes);
/* Waits for the work queued on `stream`; NULL: the legacy default stream of the calling thread's
 * current context. */
hum_status hum_stream_synchronize(struct CUstream_st *stream);

/* ====================================================================================== */
/* JIT compilation (NVRTC) and the kernel cache                                            */
/* ====================================================================================== */
/* HUM-SECTION jit */
/*
 * NVRTC compiles the CUDA C++ sources under kernels/ at run time, for one GPU architecture per
 * compilation, named as NVRTC names it: "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", and from
 * sm_90 on with the "a" suffix that enables architecture-specific instructions (wgmma, setmaxnreg):
 * "sm_90a", "sm_100a", "sm_120a", ... Accepted: what the linked NVRTC supports, from sm_75 on.
 */
/* Version of the linked NVRTC, e.g. 13 and 0. */
hum_status hum_nvrtc_version(int32_t *major, int32_t *minor);
/* HUM_OK when hum_jit_compile accepts `arch`; HUM_ERR_INVALID_ARG listing the accepted names. */
hum_status hum_arch_check(const char *arch);
/* Every name hum_arch_check accepts, ", "-separated ("sm_75, sm_80, ..., sm_90a, ..."), into
 * out. HUM_ERR_INVALID_ARG when cap is too small; HUM_ERR_COMPILE when NVRTC lists none. */
hum_status hum_arch_list(char *out, size_t cap);
/* The architecture to compile for device `d`: "sm_<major><minor>", plus "a" from sm_90 on
 * (H200: "sm_90a"). HUM_ERR_INVALID_ARG when `cap` cannot hold it (8 bytes always can). */
hum_status hum_arch_for_device(const hum_device_info *d, char *out, size_t cap);

/*
 * A kernel to compile. The source is read from kernels/ (embedded in libhum; HUM_KERNEL_PATH
 * overrides it). `#include "x.cuh"` in the source or in a header it includes names kernels/x.cuh
 * (read the same way, recursively); `#include "hum_constants.h"` names `constants`;
 * `#include <cuda_fp16.h>` and other toolkit headers come from the CUDA include directory
 * ($CUDA_HOME/include, $CUDA_PATH/include, next to the NVRTC library, /usr/local/cuda/include;
 * with its cccl/ subdirectory). Options: -std=c++17 --gpu-architecture=<arch> -default-device,
 * and --use_fast_math when fast_math is set.
 */
typedef struct hum_jit_request {
    const char *source;      /* e.g. "kernels/gemm/gemm_mma.cu" */
    const char *constants;   /* text of the generated header "hum_constants.h", or NULL */
    const char *kernel_name; /* name expression: "hum_gemm<128, 4>" or an extern "C" name */
    const char *arch;        /* e.g. "sm_90a" */
    int32_t fast_math;       /* nonzero: --use_fast_math */
} hum_jit_request;

/* hum_jit_result.cache_hit */
typedef enum hum_jit_origin {
    HUM_JIT_MISS = 0,      /* compiled by this call */
    HUM_JIT_HIT_DISK = 1,  /* read from the disk cache */
    HUM_JIT_HIT_MEMORY = 2 /* served from this process's memory */
} hum_jit_origin;

typedef struct hum_jit_result {
    void *cubin;            /* owned by the result: free with hum_jit_result_free */
    size_t cubin_size;      /* bytes */
    char lowered_name[512]; /* the kernel's symbol in the cubin (mangled name for templates) */
    int32_t cache_hit;      /* a hum_jit_origin */
    double milliseconds;    /* wall time of the call that produced this result */
    char key[33];           /* the cache key: 32 lowercase hex digits */
} hum_jit_result;

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
/* Compiles reqs[0..count) in parallel on `threads` threads (<= 0: min(count, online CPUs));
 * out[i] answers reqs[i]. If any fails: that status, a message starting "request i of count
 * (source, kernel, arch): ", and every out[] zeroed. */
hum_status hum_jit_compile_many(const char *cache_dir, const hum_jit_request *reqs, int32_t count,
                                hum_jit_result *out, int32_t threads);
/* Frees the cubin and zeroes the result; NULL or zeroed is fine. */
void hum_jit_result_free(hum_jit_result *r);
/* The cache key req would compile under, without compiling (cap >= 33). */
hum_status hum_jit_key(const hum_jit_request *req, char *out, size_t cap);

/* $HUM_CACHE_DIR, else $XDG_CACHE_HOME/hum, else $HOME/.cache/hum. HUM_ERR_IO when none of
 * those is set; HUM_ERR_INVALID_ARG when cap is too small. */
hum_status hum_cache_default_dir(char *out, size_t cap);

typedef struct hum_cache_entry {
    char key[33];
    char kernel_name[256]; /* the request's kernel_name; cut with "..." when longer */
    char arch[16];
    int64_t cubin_bytes;
    int64_t file_bytes;
    int64_t modified_unix; /* seconds since 1970-01-01 UTC */
    int32_t valid;         /* 0: corrupt or truncated (the next compile of its key replaces it) */
} hum_cache_entry;

/* Entries of the cache in `cache_dir` (NULL: default), oldest first, in a malloc'ed array to
 * release with hum_cache_list_free. A directory that does not exist lists as empty. */
hum_status hum_cache_list(const char *cache_dir, hum_cache_entry **entries, int32_t *count);
void hum_cache_list_free(hum_cache_entry *entries);
/* Removes the entries, NVRTC logs, lock files and leftover temp files (only files hum names
 * that way; anything else in the directory stays). *removed (may be NULL): entries removed.
 * Safe while other processes compile: at worst one of them compiles a kernel a second time. */
hum_status hum_cache_clear(const char *cache_dir, int32_t *removed);

/* The built-in self-check kernel (kernels/selfcheck.cu) compiled for `arch` through the cache,
 * with `seed` as its compile-time constant (HUM_SELFCHECK_SEED is the one `hum compile` and
 * `hum demo` use, so that a second run is a cache hit). Errors as hum_jit_compile. */
enum { HUM_SELFCHECK_SEED = 0x68756d21 };
hum_status hum_selfcheck_compile(const char *cache_dir, const char *arch, uint32_t seed, hum_jit_result *out);

/* ====================================================================================== */
/* Modules and launches                                                                    */
/* ====================================================================================== */
/* HUM-SECTION launch */
/* A compiled kernel loaded on a device: module + function. Thread-safe to launch concurrently. */
typedef struct hum_kernel hum_kernel;

/* Loads compiled->cubin on device `device_ordinal` and finds compiled->lowered_name in it.
 * dynamic_smem_bytes is the most dynamic shared memory any launch will ask for; it is opted in
 * here, once (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES), never per launch.
 * Errors: HUM_ERR_NO_DEVICE; HUM_ERR_INVALID_ARG (NULL, negative smem, smem beyond the device's
 * opt-in maximum, named with both numbers); HUM_ERR_CUDA (a cubin for another architecture, a
 * symbol not in it). */
hum_status hum_kernel_load(int32_t device_ordinal, const hum_jit_result *compiled, int32_t dynamic_smem_bytes,
                           hum_kernel **out);
void hum_kernel_destroy(hum_kernel *k);

typedef struct hum_launch_config {
    uint32_t grid[3];            /* blocks; grid[0] >= 1, grid[1] and grid[2] 0 count as 1 */
    uint32_t block[3];           /* threads; block[0] >= 1, block[1] and block[2] 0 count as 1 */
    uint32_t cluster[3];         /* thread-block cluster (sm_90+), dividing grid; all 0 or 1: none */
    uint32_t dynamic_smem_bytes; /* at most what hum_kernel_load opted in to */
    struct CUstream_st *stream;  /* the host's stream; NULL: the legacy default stream */
    /* nonzero: on sm_90 and newer the kernel may be scheduled before the previous kernel of the
     * stream has finished (programmatic dependent launch); it must wait for that kernel before
     * reading its results (griddepcontrol.wait, kernels/ptx/griddep.cuh). Ignored before sm_90 */
    int32_t overlap_previous;
} hum_launch_config;

/* Launches k (cuLaunchKernelEx) with args[i] pointing at the value of parameter i, as the
 * driver's kernelParams. Asynchronous. HUM_ERR_INVALID_ARG for a shape or smem outside the
 * limits above; HUM_ERR_CUDA when the driver refuses the launch. */
hum_status hum_kernel_launch(const hum_kernel *k, const hum_launch_config *cfg, void **args);

/*
 * TMA (sm_90+): a 2-D tensor map for cp.async.bulk.tensor, encoded by cuTensorMapEncodeTiled
 * with no interleave, no L2 promotion, zero fill out of bounds and unit element strides. Passed
 * to a kernel by value (a `const __grid_constant__ CUtensorMap` parameter): put its address in
 * the launch's args. 128 bytes; hum_tma_encode_2d handles the 64-byte alignment the driver needs.
 */
typedef struct hum_tensor_map {
    uint64_t opaque[16];
} hum_tensor_map;

typedef enum hum_tma_swizzle {
    HUM_TMA_SWIZZLE_NONE = 0,
    HUM_TMA_SWIZZLE_32B = 32,  /* box rows of at most 32 bytes */
    HUM_TMA_SWIZZLE_64B = 64,  /* at most 64 bytes */
    HUM_TMA_SWIZZLE_128B = 128 /* at most 128 bytes */
} hum_tma_swizzle;

typedef struct hum_tma_2d {
    hum_dtype dtype;           /* element type of 8, 16, 32 or 64 bits (sub-byte data: its int32 words) */
    void *global_address;      /* device memory, 16-byte aligned */
    uint64_t rows, cols;       /* extent: rows (outer), cols (inner, contiguous), in elements, 1..2^32 */
    uint64_t row_stride_bytes; /* multiple of 16, >= cols * element size, < 2^40 */
    uint32_t box_rows, box_cols; /* the tile one copy moves: 1..256 each; box_cols * element size a
                                  * multiple of 16 bytes and within the swizzle span */
    hum_tma_swizzle swizzle;   /* shared-memory bank swizzle of the tile */
} hum_tma_2d;

/* Encodes `desc`. The constraints above are checked first (HUM_ERR_INVALID_ARG naming the
 * field and its limit, no driver needed); then HUM_ERR_NO_DEVICE or HUM_ERR_CUDA from the driver. */
hum_status hum_tma_encode_2d(const hum_tma_2d *desc, hum_tensor_map *out);

/* Compiles the self-check kernel for device `ordinal` (hum_selfcheck_compile), launches it on a
 * stream of its own and compares every output element with the host's own computation of it.
 * HUM_ERR_INTERNAL naming the first wrong element (and how many are wrong) on a mismatch. */
typedef struct hum_selfcheck_report {
    char arch[16];
    int32_t cache_hit;      /* a hum_jit_origin */
    double compile_ms;
    int64_t elements;       /* output elements checked */
} hum_selfcheck_report;
hum_status hum_selfcheck_run(int32_t ordinal, const char *cache_dir, uint32_t seed, hum_selfcheck_report *out);

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
 * Re-reads every policy layer, then re-plans every prepared layer of the runtime with the new
 * policies, compiles the kernels its new dispatch table needs (in parallel, through the kernel
 * cache: only new variants run NVRTC) and swaps each layer's table in with one atomic pointer
 * store. Forwards running meanwhile, on any thread or stream, are never blocked: each keeps the
 * table it started with, and a replaced table's kernels are unloaded only once no forward holds
 * it and the GPU has run every launch made with it (the call waits for that: it synchronises
 * the device context after the swap, so it must not run while another thread captures a CUDA
 * graph in global capture mode). A CUDA graph captured before the reload holds launches of the
 * replaced kernels: capture it again afterwards. All-or-nothing: when a file is rejected
 * (HUM_ERR_POLICY or HUM_ERR_IO, with file:line) or any layer fails to re-plan, compile or load
 * (HUM_ERR_UNSUPPORTED naming the rule, HUM_ERR_COMPILE, HUM_ERR_CUDA, with the layer's N and
 * K), the policies and every table in force stay exactly as they were. With `hot_reload: true`
 * in the config the runtime does the same by itself when a policy file or directory changes,
 * checked (one stat per file) each time it enters Lua (layer preparation, checkpoint loading)
 * and every 500 ms on a thread of its own. Not from Lua code running on this runtime
 * (HUM_ERR_INTERNAL).
 */
hum_status hum_runtime_reload_policies(hum_runtime *rt);
/* Number of policy files in force, and the origin of file i in layering order (0 first):
 * "embedded:policies/sm90.lua" or a path. NULL when i is out of range. Safe beside a reload on
 * another thread; the strings stay valid until the runtime is destroyed. The runtime keeps one
 * copy of each distinct origin it has loaded, so reloading the same files (by hand or hot)
 * keeps no memory per reload; only new file names add their path once. */
int32_t hum_runtime_policy_count(const hum_runtime *rt);
const char *hum_runtime_policy_origin(const hum_runtime *rt, int32_t i);

/* The config's override for `key` ("moe.activation", "linear.activation"), in its canonical
 * spelling ("e4m3", "mxfp8", ...), or NULL when the config does not set it. */
const char *hum_runtime_override(const hum_runtime *rt, const char *key);

/* ====================================================================================== */
/* Layers: prepare and forward                                                             */
/* ====================================================================================== */
/* HUM-SECTION layer */

/*
 * A layer is one quantized dense linear weight, prepared for the GPU: C[M, N] = A[M, K] *
 * dequant(W)[N, K]^T (+ bias) with float16 or bfloat16 activations A and output C.
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
 * A combination outside this list fails at prepare time with HUM_ERR_UNSUPPORTED naming it.
 * On sm_90 the built-in policy runs the M ranges from 33 up on kernels/gemm/gemm_wgmma.cu (Hopper
 * warpgroup MMA, same prepared weights, same results to rounding) for the layers that kernel
 * takes (policy field `kernel`, hum_tuning; its rules: docs/policies.md, "Tuning fields").
 * Known limit: float8_e5m2 codes with an all-ones exponent (which the standard format reads
 * as finite numbers of 65536 and more) overflow float16 activations.
 */
typedef struct hum_layer_options {
    /* float16 or bfloat16 (A and C); HUM_DTYPE_INVALID (0): the weight's param_dtype */
    hum_dtype activation_dtype;
    /* the tensor-parallel shard of the weight the layer holds (hum_standard_shard); zeroed:
     * the whole weight */
    hum_shard shard;
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
 * enum name), DERIVED (filled by planning: lua/hum/layer.lua for the layer config).
 * constant: the hum_cfg name of the field's value in "hum_constants.h", "" for none.
 */
#define HUM_LAYER_CONFIG_FIELDS(X)                                                               \
    X(int64_t, n, INT, IN, "kNReal", "")                 /* output features N */                 \
    X(int64_t, k, INT, IN, "kKReal", "")                 /* input features K */                  \
    X(int64_t, num_experts, INT, IN, "kExperts", "")     /* 0: dense */                          \
    X(hum_dtype, a_dtype, DTYPE, IN, "kADtype", "")      /* activations A */                     \
    X(hum_dtype, c_dtype, DTYPE, IN, "kCDtype", "")      /* output C */                          \
    X(hum_dtype, weight_dtype, DTYPE, IN, "kWeightDtype", "")                                    \
    X(hum_dtype, param_dtype, DTYPE, IN, "", "")         /* the checkpoint's 16-bit type */      \
    X(hum_dtype, scale_dtype, DTYPE, IN, "", "")                                                 \
    X(hum_scale_type, scale_type, ENUM, IN, "", "channel group block tensor group_tensor")      \
    X(int64_t, group_size, INT, IN, "", "")              /* as in hum_standard_weight */         \
    X(int64_t, group_size_n, INT, IN, "", "")                                                    \
    X(int32_t, zero_point, ENUM, IN, "", "none int float") /* a hum_zero_point_kind */          \
    X(int32_t, has_bias, BOOL, IN, "kBias", "")                                                  \
    X(int32_t, act_order, BOOL, IN, "", "")              /* k_perm: A is permuted before the GEMM */ \
    X(int32_t, has_global_scale, BOOL, IN, "", "")                                               \
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
    /* how A rows map to experts: dense (the only type this build runs), MoE indexed (sorted     \
     * token ids), grouped contiguous (expert offsets), grouped masked (per-expert counts) */    \
    X(int32_t, gemm_type, ENUM, IN, "kGemmTypeId", "dense indexed grouped_contiguous grouped_masked") \
    X(int32_t, f16_accum, BOOL, IN, "kF16Accum", "")      /* accumulate in float16 */            \
    X(int32_t, batch_invariant, BOOL, IN, "", "")         /* results independent of M: a policy choice */

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
    X(int32_t, kernel, ENUM, OPTIONAL, "", "mma wgmma") /* the kernel family, hum_gemm_kernel */

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
 * of warp_n / 16 64-row slabs x block_k. The layers and tunings each takes: docs/policies.md. */
typedef enum hum_gemm_kernel { HUM_GEMM_KERNEL_MMA = 0, HUM_GEMM_KERNEL_WGMMA = 1 } hum_gemm_kernel;

/* TuningConfig (docs/policies.md, "Tuning fields"), with the range of M it is for in a dispatch
 * table (not a tuning field: planning sets it). */
typedef struct hum_tuning {
    int64_t m_min, m_max; /* inclusive; m_max of the last entry is INT64_MAX */
    HUM_TUNING_FIELDS(HUM_CONFIG_MEMBER)
} hum_tuning;

enum { HUM_LAYER_MAX_ENTRIES = 8 };

/* The exchange between hum_layer_prepare (C) and lua/hum/layer.lua's plan(). */
typedef struct hum_layer_plan {
    hum_layer_config config;
    hum_compute_config compute;
    /* in: the target; sm 0 means no GPU: plan for `arch` with its nominal device */
    char arch[16];
    char device_name[256];
    int32_t sm, sm_count;
    int64_t smem_per_block, l2_bytes;
    /* out: the dispatch table (ranges ascending and contiguous from 1) and its policy; for a
     * plan without a GPU (sm 0) device_name becomes the nominal device's */
    int32_t entry_count;
    hum_tuning entries[8]; /* HUM_LAYER_MAX_ENTRIES */
    char policy_name[64];
    char policy_origin[512];   /* the winning policy's file: "embedded:policies/sm90.lua" or a path */
    char entry_origin[8][256]; /* per entry, "file:line" of the policy line that chose its tuning */
} hum_layer_plan;

/* The field lists above as a table, for lua/hum/: one row per field, layer config first, then
 * compute config, then tuning, each in declaration order. */
typedef enum hum_config_id { HUM_CONFIG_LAYER = 0, HUM_CONFIG_COMPUTE = 1, HUM_CONFIG_TUNING = 2 } hum_config_id;
typedef enum hum_field_kind { HUM_FIELD_INT = 0, HUM_FIELD_BOOL = 1, HUM_FIELD_DTYPE = 2, HUM_FIELD_ENUM = 3 } hum_field_kind;
typedef enum hum_field_role { HUM_FIELD_IN = 0, HUM_FIELD_OPTIONAL = 1, HUM_FIELD_DERIVED = 2 } hum_field_role;
typedef struct hum_config_field {
    int32_t config;       /* hum_config_id */
    int32_t kind;         /* hum_field_kind */
    int32_t role;         /* hum_field_role */
    int32_t size;         /* bytes: 4 or 8 */
    int64_t offset;       /* in its struct */
    const char *name;
    const char *constant; /* "" when the kernels have no constant for it */
    const char *values;   /* ENUM: the names of 0, 1, ... separated by spaces; else "" */
} hum_config_field;

/* The rows of every config field; *count (unless NULL) receives their number. */
const hum_config_field *hum_config_fields(int32_t *count);

/* Checks one tuning against every rule of its kernel family for `config` (derived fields
 * filled; a dense compute config) and gives its dynamic shared memory in bytes and its threads
 * per CTA (either pointer may be NULL). HUM_ERR_POLICY for a value no policy may write (e.g. a
 * block N that is no power of two), HUM_ERR_UNSUPPORTED naming the kernel rule it breaks. The
 * rules live in runtime/src/gemm_variant.c and gemm_wgmma.c; planning applies the same. */
hum_status hum_layer_tuning_check(const hum_layer_config *config, const hum_tuning *tuning, int64_t *smem_bytes,
                                  int32_t *threads);

/* A policy's tuning `in` (its M range and tuning fields as written) fitted to the layer of
 * `config` (derived fields filled) and `compute` for `arch` on a device of smem_budget bytes of
 * shared memory per block (device_name for messages), into *out: the values checked against what
 * a policy may write (HUM_ERR_POLICY), block N and K adapted to the layer, the family's warp
 * shape applied, the stages lowered until ctas_per_sm CTAs fit, then every rule of the family
 * checked (HUM_ERR_UNSUPPORTED naming it). The rules: docs/policies.md, "Tuning fields". */
hum_status hum_layer_fit_tuning(const hum_layer_config *config, const hum_compute_config *compute,
                                const hum_tuning *in, const char *arch, int64_t smem_budget, const char *device_name,
                                hum_tuning *out);

/* The plan's entries (as the policy wrote them: config, compute, target, policy name and entry
 * origins filled) fitted with hum_layer_fit_tuning, in place, and neighbours that end with the
 * same tuning merged (the first's origin kept). A broken rule fails naming the policy, the
 * entry's origin ("file:line"), the M range and the rule. */
hum_status hum_layer_fit_plan(hum_layer_plan *plan);

/* Whether kernel family `kernel` (a hum_gemm_kernel) runs a layer of `config` (derived fields
 * filled) and `compute` on `arch`: HUM_OK, or HUM_ERR_UNSUPPORTED naming the rule;
 * HUM_ERR_INVALID_ARG for NULL or an unknown family. lua/hum/layer.lua hands the answers to the
 * policies as layer.kernels. */
hum_status hum_layer_kernel_takes(const hum_layer_config *config, const hum_compute_config *compute, int32_t kernel,
                                  const char *arch);

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
 * (device memory, the activation dtype, rank 2):
 *   a: [M, K], row stride strides[0] (0: K), strides[1] 0 or 1. Unless the layer is act-order
 *      or K % 8 != 0, the data pointer and the row stride must be 16-byte aligned.
 *   c: [M, N], row stride strides[0] (0: N); with N even, 4-byte aligned pointer and stride.
 *   a_scale: must be NULL (16-bit activations carry no scale).
 * Act-order layers first gather A's columns into the prepared weights' K order in the
 * workspace (kernels/prep/permute_a.cu), then run the same kernels as a layer without act-order; a
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

/* hum_layer_forward_ws with the layer's own workspace (made at prepare: the locks, and for an
 * act-order layer room for up to 16 MiB of gathered rows but at least 256 rows), so forwards
 * of one layer through this call must not overlap (one stream, one thread at a time). */
hum_status hum_layer_forward(hum_layer *layer, struct CUstream_st *stream, const hum_tensor *a,
                             const hum_tensor *a_scale, const hum_tensor *c);

/* Bytes of a workspace in which forwards of `layer` (prepared) with M <= max_m run in one pass:
 * the stream-K locks (SMs x 32 int32, rounded up to 256 bytes: what every layer needs) plus, for
 * an act-order layer, max_m x K 16-bit elements rounded up to 256. A workspace of the largest
 * size over a set of layers serves each of them. Errors: HUM_ERR_INVALID_ARG (NULL, an
 * unprepared layer, max_m < 0 or one whose size overflows). */
hum_status hum_layer_workspace_size(const hum_layer *layer, int64_t max_m, int64_t *bytes);

/* A workspace of `bytes` bytes on the runtime's GPU, in device memory hum allocates
 * (device_memory NULL) or in the host's (device memory of that GPU, 256-byte aligned, at least
 * `bytes` long, owned by the host, which frees it after hum_workspace_destroy). Zeroes its
 * lock area and waits for that. Errors: HUM_ERR_INVALID_ARG (NULL runtime or out, fewer bytes
 * than the locks take, a misaligned pointer), HUM_ERR_NO_DEVICE, HUM_ERR_OUT_OF_MEMORY,
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
    hum_tuning entries[8];    /* HUM_LAYER_MAX_ENTRIES */
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
    hum_dispatch_row rows[8]; /* HUM_LAYER_MAX_ENTRIES, ascending M, contiguous from M = 1 */
} hum_layer_dispatch;

/* The dispatch table in force for a prepared layer (the one the last policy reload published;
 * safe beside forwards and reloads on other threads). HUM_ERR_INVALID_ARG for NULL or a layer
 * not prepared yet (hum_layer_describe_plan plans one without preparing it). */
hum_status hum_layer_describe(const hum_layer *layer, hum_layer_dispatch *out);

/* The dispatch table the policies in force give the weight (opts may be NULL) on the nominal
 * device of `arch` ("sm_80", "sm_90a"), or with arch NULL on the runtime's GPU; plans only:
 * nothing is compiled, nothing touches a GPU. Errors: those of hum_layer_compile without
 * HUM_ERR_COMPILE; HUM_ERR_NO_DEVICE for arch NULL on a runtime without a GPU. */
hum_status hum_layer_describe_plan(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                                   const char *arch, hum_layer_dispatch *out);

/*
 * `hum tune` (runtime/cli/cmd_tune.c) and lua/hum/tune.lua share one session: Lua plans the
 * table in force, generates and fits candidate tunings for each of its M ranges and writes
 * policy files; C compiles, checks and times the candidates. Hosts do not need it.
 */
enum { HUM_TUNE_MAX_CANDIDATES = 64, HUM_TUNE_MAX_SAMPLES = 16, HUM_TUNE_MAX_M = 64 };

typedef struct hum_tune_range {
    int32_t sample_count;
    int64_t samples[16];        /* HUM_TUNE_MAX_SAMPLES: the M values of the list inside the range */
    int32_t candidate_count;    /* candidates[0] is the table in force's tuning for the range */
    hum_tuning candidates[64];  /* HUM_TUNE_MAX_CANDIDATES: distinct, fitted; m_min..m_max the range */
    char builtin_origin[256];   /* the policy line that chose candidates[0] */
    double us[64][16];          /* C: median microseconds of candidate i at sample j; NaN: dropped */
    char dropped[64][128];      /* C: why candidate i has no time ("" when it has one) */
    int32_t winner;             /* Lua (pick): the candidate the tuned file gives the range */
} hum_tune_range;

typedef struct hum_tune_session {
    hum_layer_plan plan;        /* C: inputs and the GPU target; Lua (begin): the table in force */
    int32_t m_count;
    int64_t m_values[64];       /* C: HUM_TUNE_MAX_M sample M values, as --m gives them */
    const char *candidates_file; /* C: a Lua file that extends the candidates, or NULL */
    const char *spec;           /* C: the layer SPEC, for the file's comments */
    int32_t reps;               /* C: timed calls per median, for the file's comments */
    int32_t range_count;        /* Lua (begin) */
    hum_tune_range ranges[8];   /* HUM_LAYER_MAX_ENTRIES */
    /* C sets text_range and text_candidate, Lua (policy_text) writes text: with text_range -1
     * the tuned file (each range its winner), else a file that gives every M of the layer class
     * candidate text_candidate of range text_range. */
    int32_t text_range, text_candidate;
    char text[65536];
} hum_tune_session;

/*
 * CPU-only planning and compilation for `arch` ("sm_80", "sm_90a", ...), no GPU needed: the
 * policies see the nominal device of the arch. What `hum compile --layer` and CI do. Compiles
 * every kernel of the policy's table for the weight (opts may be NULL) through the runtime's
 * kernel cache and describes the result in *out (entries, compile time, cache hits).
 * Errors: those of hum_layer_from_standard and hum_layer_prepare without the GPU ones;
 * HUM_ERR_INVALID_ARG for an arch NVRTC does not take.
 */
hum_status hum_layer_compile(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                             const char *arch, hum_layer_info *out);

/*
 * A layer described by a SPEC string, for `hum bench --layer`, `hum compile --layer` and tests:
 * comma-separated key=value pairs, e.g. "n=8192,k=8192,w=uint4,a=float16,group=128".
 *   n, k      output and input features (required, >= 1)
 *   w         weight dtype: uint1..uint8 or a float name (e4m3, e5m2, e2m1, e3m2, e2m3, ...);
 *             default uint4
 *   a         activation dtype float16 | bfloat16 (default float16), also the param dtype
 *   group     scale group size along K; 0 or absent: one scale per channel
 *   scale     scale dtype (default: the param dtype; e8m0, e4m3, float32, ...), or "tensor"
 *   global    1: group scales times a global scale (GROUP_TENSOR); default 0
 *   zp        none | int | float (default none)
 *   bias      0 | 1        actorder  0 | 1 (a random permutation of K)
 * Unknown keys and bad values are HUM_ERR_INVALID_ARG naming the key and what it takes.
 */
typedef struct hum_layer_spec {
    int64_t n, k;
    hum_dtype weight_dtype, activation_dtype, scale_dtype;
    hum_scale_type scale_type;
    int64_t group_size;
    int32_t zero_point; /* a hum_zero_point_kind */
    int32_t bias, act_order;
} hum_layer_spec;

hum_status hum_layer_spec_parse(const char *spec, hum_layer_spec *out);
/* The spec as text that hum_layer_spec_parse reads back. HUM_ERR_INVALID_ARG if cap is short. */
hum_status hum_layer_spec_format(const hum_layer_spec *spec, char *out, size_t cap);
/* A random weight for the spec (normal values quantized by hum_quantize_reference; random bias
 * and act-order permutation), the same for the same seed. Release with hum_standard_free.
 * Errors: those of hum_quantize_reference. */
hum_status hum_layer_spec_weight(const hum_layer_spec *spec, uint64_t seed, hum_standard_weight *out);
/* hum_layer_compile for the layer of a spec, from its shapes and types alone: no weight is made,
 * so the time does not grow with N x K. Plans and compiles exactly what hum_layer_compile does
 * for hum_layer_spec_weight's weight (the same kernels, so the same cache entries). Errors: those
 * of hum_layer_compile; HUM_ERR_INVALID_ARG naming the field for a spec hum_layer_spec_parse
 * would not give. */
hum_status hum_layer_compile_spec(hum_runtime *rt, const hum_layer_spec *spec, const char *arch, hum_layer_info *out);
/* hum_layer_describe_plan for the layer of a spec, from its shapes and types alone (no weight is
 * made: the cost does not grow with N x K), as hum_layer_compile_spec plans it. Errors: those of
 * hum_layer_describe_plan; HUM_ERR_INVALID_ARG naming the field of a spec hum_layer_spec_parse
 * would not give. */
hum_status hum_layer_describe_spec(hum_runtime *rt, const hum_layer_spec *spec, const char *arch,
                                   hum_layer_dispatch *out);

#ifndef HUM_CDEF
#ifdef __cplusplus
}
#endif
#endif
#endif /* HUM_H */
