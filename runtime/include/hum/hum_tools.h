/*
 * hum_tools.h: the tools hum is built from, for tests, the `hum` command line and hosts that
 * need them: dtype conversions, bit packing, the float64 reference dequantizer, GEMM and
 * quantizer, safetensors files and checkpoints (reading, listing, loading, writing), device
 * memory, the kernel cache, CPU-only layer compilation and layer SPEC strings. hum/hum.h has
 * the host's path; its conventions hold here too.
 */
#ifndef HUM_TOOLS_H
#define HUM_TOOLS_H

#include "hum/hum.h"

#ifndef HUM_CDEF
#ifdef __cplusplus
extern "C" {
#endif
#endif

#if defined(__GNUC__) && !defined(HUM_CDEF)
#define HUM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define HUM_PRINTF(a, b)
#endif

/* ====================================================================================== */
/* Errors                                                                                  */
/* ====================================================================================== */
/* For code built on hum that reports errors the way hum does (the `hum` command line):
 * records a message for hum_last_error() on this thread and returns `status`, so that an
 * error path reads `return hum_fail(HUM_ERR_FORMAT, "%s: ...", path);`. hum_fail_context
 * prefixes the current message instead ("loading layer x: <old message>"). */
hum_status hum_fail(hum_status status, const char *fmt, ...) HUM_PRINTF(2, 3);
hum_status hum_fail_context(hum_status status, const char *fmt, ...) HUM_PRINTF(2, 3);

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

/* The C declarations of hum.h, hum_tools.h and what only libhum and its Lua code exchange,
 * preprocessed with HUM_CDEF (hum_cdef.h in the build's runtime folder, embedded at build
 * time): the text a binding of this library declares (LuaJIT's ffi.cdef; the Python package
 * builds its ctypes types and prototypes from it), so a binding reads the types of the very
 * library it loaded. NUL-terminated, static; "" only for a libhum built without it. */
const char *hum_cdef(void);

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
 * outside 1..8, length is negative or so large that its bits pass INT64_MAX, or layout unknown. */
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
 * AutoAWQ GEMM order (as AutoAWQ packs its GEMM qweight and qzeros; docs/formats.md): in each
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
 * nvfp4- and mxfp4-pack-quantized, gpt-oss *_blocks (docs/formats.md).
 * HIGH_FIRST: element 2i in the high nibble, as PTX cvt.rn.satfinite.e2m1x2 writes it
 * (PTX ISA, cvt with the .e2m1x2 type). count is the number of 4-bit values; bytes hold
 * ceil(count / 2), an odd count leaving the last byte's second nibble zero.
 * Errors: HUM_ERR_INVALID_ARG (negative count, NULL, a value >= 16 when packing: named).
 */
typedef enum hum_nibble_order { HUM_NIBBLE_LOW_FIRST = 0, HUM_NIBBLE_HIGH_FIRST = 1 } hum_nibble_order;
hum_status hum_nibbles_unpack(const uint8_t *bytes, int64_t count, hum_nibble_order order, uint8_t *values);
hum_status hum_nibbles_pack(const uint8_t *values, int64_t count, hum_nibble_order order, uint8_t *bytes);

/* HUM-SECTION reference */
/*
 * Reference math on the standard format: host, float64, plain loops. This is what kernel
 * tests and format-converter tests compare against; it is not meant to be fast.
 */
/* out[N][K] (float64) = the dequantized weight of `expert` (0 for a dense layer) in
 * checkpoint column order: stored column j lands in column k_perm[expert][j] (padding
 * columns, -1, are skipped; K is the weight's k, not the stored K'). Evaluated as
 * ((q - z) * s) * global for ints and (decode(q) * s) * global for FP weights, whose codes
 * are read as all-finite (e4m3fn 0x7F is 480, e5m2 0x7C is 65536), as the kernels read them.
 * Errors: those of hum_standard_validate; HUM_ERR_INVALID_ARG for NULL out or an expert
 * outside [0, max(num_experts, 1)). */
hum_status hum_reference_dequant(const hum_standard_weight *w, int64_t expert, double *out);
/* c[M][N] = a[M][K] * dequant(W)^T + bias[N] (when present), float64, with `a` in checkpoint
 * column order (act-order needs no gather by the caller); each output summed over k in order,
 * then the bias added, so its bits do not depend on M. M may be 0. Errors: as
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
                            * (GPTQ act-order: groups formed in the permuted order). With E > 0
                            * every expert's row of the output's k_perm [E, K] is this one. */
} hum_quant_spec;

/*
 * The reference quantizer used by tests and `hum demo`: float weights in, a standard weight
 * out (owned by `out`; release with hum_standard_free). Each scale cell (group_size columns
 * of one row for GROUP / GROUP_TENSOR; a row for CHANNEL; group_size_n x group_size for BLOCK;
 * the whole expert for TENSOR) gets a range r from its values:
 *   int, no zero point:  r = amax / (2^(b-1) - 1/2), codes around the midpoint 2^(b-1) (the
 *                        GPTQ symmetric scale 2 * amax / (2^b - 1), as AutoGPTQ computes it);
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
 * this is NVFP4 as ModelOpt writes it (global = amax / (6 * 448), formats/modelopt.lua).
 * Codes, with S = s * global: int q = clamp(rne(w / S) + z, 0, 2^b - 1), z = the midpoint or
 * clamp(rne(-min(lo, 0) / S), 0, 2^b - 1); float zero point zf = -min(lo, 0) / S in
 * param_dtype and q = clamp(rne(w / S + zf), 0, 2^b - 1); FP q = encode(clamp(w / S, +-max)).
 * Errors (out is left zeroed): HUM_ERR_INVALID_ARG for NULL pointers, N or K < 1, a weight or
 * bias that is not finite (named by index), a k_perm that is not a permutation, group sizes
 * that do not match the scale type, a bad dtype; HUM_ERR_UNSUPPORTED for a zero point with FP
 * weights or with BLOCK / TENSOR scales; HUM_ERR_OUT_OF_MEMORY. Bands of rows run on threads, up
 * to one per CPU the process may run on (none more when called from hum's own threads), and the
 * call returns when all are done; the result does not depend on their number.
 */
hum_status hum_quantize_reference(const float *w, int64_t n, int64_t k, const hum_quant_spec *spec,
                                  hum_standard_weight *out);

/* How activations are quantized to 8 bits: the code type, the scale mode and, for
 * HUM_ACT_SCALE_GROUP, the group and the scale type. */
typedef struct hum_act_quant {
    hum_dtype dtype;       /* HUM_DTYPE_FLOAT8_E4M3FN or HUM_DTYPE_INT8 */
    hum_act_scale scale;
    int32_t group;         /* GROUP: columns per scale, a power of two in 8..256; else 0 */
    hum_dtype scale_dtype; /* float32; GROUP with e4m3fn codes may take float8_e8m0 (MX) */
} hum_act_quant;

/*
 * The CPU twin of the activation-quantization kernel (kernels/prep/quantize_a.cu): the same
 * inputs give the same bits. a: host float16 or bfloat16 [M, K] (row stride strides[0], 0:
 * K), finite; or float32, the values the MoE activation kernel quantizes per token
 * (kernels/moe/act.cu) from registers. q: host, how->dtype, [M, Kq] with Kq >= K (columns past K get 0). scale: host;
 * TOKEN float32 [M] or [M, 1]; GROUP [M, ceil(K / group)] of scale_dtype, any strides (so a
 * column-major [G][M] view works); TENSOR NULL (the scale is input_scale).
 *   max = 448 (e4m3fn) or 127 (int8); amax = the largest |a| of the row or group.
 *   TOKEN, GROUP float32: scale = amax / max; inv = max / amax, at most FLT_MAX.
 *   GROUP e8m0 (OCP MX): scale = 2^clamp(floor(log2(amax)) - 8, -127, 127); inv = 1 / scale.
 *   TENSOR: inv = 1 / input_scale.
 *   e4m3fn code = encode(a * inv), nearest even, saturating at +-448; int8 code =
 *   rne(clamp(a * inv, -127, 127)). Every step is one float32 operation.
 * An all-zero row or group (and input_scale 0) gives inv 0: codes 0 and scale 0 (e8m0: code 0,
 * there is no zero) and never a NaN.
 * MXFP8 as rounding (what a layer whose mxfp8 activations run in 16-bit A does, lua/hum/
 * activation.lua): q of float16 or bfloat16 [M, Kq] (elements, not bytes; the kernel writes A's
 * own type) with how = float8_e4m3fn, GROUP, 32, float8_e8m0 and scale NULL: q[r][j] = the e4m3fn
 * code's value times its group's scale 2^(e8m0 code - 127) (exact in float32), rounded to q's
 * type, nearest even (exact unless below its normal range); an all-zero group gives 0.
 * Errors: HUM_ERR_INVALID_ARG naming the tensor or field: NULL, non-host memory, a dtype,
 * shape or stride that does not fit, a group outside 8..256 or not a power of two, e8m0
 * scales without GROUP or with int8, input_scale negative or not finite for TENSOR, a 16-bit q
 * with anything but mxfp8 (or with a scale tensor).
 */
hum_status hum_quantize_activations(const hum_tensor *a, const hum_act_quant *how, float input_scale,
                                    const hum_tensor *q, const hum_tensor *scale);

/* ====================================================================================== */
/* safetensors and checkpoints                                                             */
/* ====================================================================================== */
/* HUM-SECTION safetensors */
/*
 * safetensors container (the huggingface/safetensors README, "Format", and its reference
 * parser, the Rust crate safetensors): bytes 0..7 hold N, the header length (u64 little-endian); bytes
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
 * element size), written to a temporary file, flushed to disk and renamed into place. For each tensor: name,
 * rank, shape and data are read; dtype_name if non-NULL, else the name of `dtype` (float16 ->
 * "F16", float8_e4m3fn -> "F8_E4M3", uint8 -> "U8", ...); nbytes and file are ignored (the size
 * comes from shape and dtype). metadata: NULL or a NULL-terminated list of key, value strings
 * (UTF-8, as names).
 * HUM_ERR_INVALID_ARG for a duplicate or empty name, a name that is not UTF-8 or is
 * "__metadata__", a dtype with no safetensors name or a bad shape; HUM_ERR_IO naming the path
 * when writing fails (nothing is left behind).
 */
hum_status hum_safetensors_write(const char *path, const hum_safetensors_tensor *tensors, int64_t count,
                                 const char *const *metadata);

/*
 * Writes `size` bytes of `data` to `path` whole: into a temporary file beside it (created
 * exclusively, mode 0666 less the umask), flushed to disk, then renamed into place, so that a
 * reader sees the old file or the new one. Over an existing file only when `replace` is nonzero
 * (never over a device, FIFO, socket or directory); else an existing `path`, even one made
 * meanwhile, is left as it was and the call fails. On any
 * failure nothing new is left behind. Errors: HUM_ERR_INVALID_ARG for a NULL path (or NULL data
 * with a size); HUM_ERR_IO naming the path ("PATH exists: not replaced", or the reason).
 */
hum_status hum_file_write(const char *path, const void *data, size_t size, int replace);

/*
 * Reads `path` whole into *data (NUL-terminated after its *size bytes; size may be NULL;
 * release with hum_file_free), opened as the runtime opens a config
 * (runtime/src/core/regular_file.c): a regular file, or a pipe or FIFO (`<(...)`) read to its
 * end, where one that no process writes reads as empty instead of waiting; a device, socket or
 * directory is refused, so a named file can neither hang the caller nor stream into its memory.
 * What `hum tune --candidates` reads. Errors: HUM_ERR_INVALID_ARG for a NULL path or data;
 * HUM_ERR_IO "PATH: why" ("No such file or directory", "is a directory", "not a regular file
 * or a pipe", ...).
 */
hum_status hum_file_read(const char *path, char **data, size_t *size);
void hum_file_free(char *data);

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
/* 1 when opening the checkpoint at `checkpoint` (a directory or one .safetensors file) reads
 * `path` (existing or not), so that writing `path` changes the checkpoint: the .safetensors file
 * itself; beside it the config files above; for a directory, also any file directly in it (a new
 * .safetensors there is a shard). 0 otherwise, also when `checkpoint` does not exist. Sets no
 * error. */
int32_t hum_checkpoint_reads(const char *checkpoint, const char *path);

/* Allocates a zeroed, contiguous host tensor with malloc (hum_standard_free and
 * hum_host_tensor_free release it). Element size: 1 byte for dtypes of 8 bits or fewer (one code
 * per byte), else bits / 8. rank 0..4; shape entries >= 0. HUM_ERR_INVALID_ARG for an invalid
 * dtype, rank or shape; on any failure *t is zeroed. */
hum_status hum_host_tensor_alloc(hum_tensor *t, hum_dtype dtype, int32_t rank, const int64_t *shape);
/* Frees a tensor from hum_host_tensor_alloc and zeroes the struct; safe on a zeroed struct. */
void hum_host_tensor_free(hum_tensor *t);

/*
 * Checkpoint formats -> the standard format. The format is detected from the config files
 * (lua/hum/formats.lua) and converted by formats/<format>.lua: gptq (v1 "gptq" stores zero - 1,
 * "gptq_v2" the zero; act-order g_idx becomes k_perm), awq (GEMM), compressed-tensors
 * (pack-quantized in the <= 0.17 and >= 0.18 layouts, int-, float-, naive-quantized,
 * nvfp4-pack-quantized, mxfp4-pack-quantized), modelopt (FP8, NVFP4), fp8 (block-wise
 * weight_scale_inv), mxfp4 (gpt-oss *_blocks / *_scales experts), bitnet. Facts per format:
 * docs/formats.md and the header comment of each formats/ file.
 * A layer is named by its module path ("model.layers.0.mlp.down_proj"); gpt-oss experts by
 * "model.layers.0.mlp.experts.gate_up_proj" (rows in checkpoint order: gate and up interleaved).
 * Checkpoints with one module per expert ("...experts.<i>.<proj>", indices 0..E-1) list them
 * as one MoE layer "...experts.*.<proj>", loaded with every tensor stacked along E (experts
 * must share dtypes, scale type, group sizes, zero-point kind and act-order permutation); each
 * expert also loads alone by its own name.
 */
typedef struct hum_layer_summary {
    char name[512]; /* a longer name is shown cut, ending in "..." (load it by its whole name) */
    char format[64];        /* "gptq", "gptq_v2", "awq", "compressed-tensors/pack-quantized", ... */
    hum_dtype weight_dtype; /* of the standard weight: uint4, float8_e4m3fn, float4_e2m1, ... */
    int32_t bits;
    char scale[32];         /* "group", "channel", "tensor", "block 128x128", "group+tensor" */
    int64_t group_size;     /* K extent of a scale; 0 for channel and tensor scales */
    int32_t symmetric;      /* 1: no zero point (ints use the midpoint 2^(bits-1)) */
    int32_t act_order;      /* 1: g_idx permutes K */
    int64_t n, k, num_experts;
    /* the checkpoint's activation scheme (hum_standard_weight.act_dtype): "" for weight-only
     * layers (16-bit activations), "e4m3 token", "e4m3 tensor" (static input_scale), "e4m3
     * group 128", "int8 token", "mxfp8", "nvfp4", ... (docs/formats.md) */
    char activations[32];
    /* "" when the layer converts as far as the listing checks: every rule of a conversion that
     * the config and tensor headers decide (names, dtypes, shapes, the small scale tensors, every
     * expert of a set), so that hum_checkpoint_load_layer can still refuse it only on the values
     * inside its weight, scale and zero-point tensors (codes out of range, NaN scales); else why
     * it cannot, as hum_checkpoint_load_layer would say it (HUM_ERR_FORMAT / HUM_ERR_UNSUPPORTED),
     * cut to fit. A quantized weight whose scale tensor is missing is listed with that reason. Such a layer is still listed, with its name and whatever else is zero/"". One
     * layer that cannot be converted does not fail the listing; a checkpoint whose format or
     * config cannot be read at all still does. */
    char error[512];
} hum_layer_summary;

typedef struct hum_layer_list {
    hum_layer_summary *items;
    int64_t count, capacity;
} hum_layer_list;
void hum_layer_list_free(hum_layer_list *list);
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
 * quantization_config; a GPTQ checkpoint also gets AutoGPTQ's quantize_config.json. None of
 * those may be in `dir` already, nor a config file a reader would take beside them
 * (quantize_config.json, quant_config.json, hf_quant_config.json): such a directory is refused
 * before anything is written, and no file is ever replaced.
 *   GPTQ (formats/gptq.lua reads it back): qweight I32 [K*b/32, N], qzeros I32 [G, N*b/32] ("gptq"
 *   stores zero - 1, "gptq_v2" the zero), scales [G, N], g_idx I32 [K]. Needs dense uint2, 3, 4
 *   or 8 weights with GROUP (or CHANNEL: group_size -1) float16/bfloat16 scales, an integer zero
 *   point or none (sym), K*b and N*b multiples of 32 (AutoGPTQ sizes by integer division), and
 *   the same bits, group size and sym for every layer. act-order (k_perm) is written as g_idx
 *   with desc_act true. v1 cannot hold a zero point of 0 (it would store -1): use gptq_v2.
 *   AWQ GEMM (formats/awq.lua reads it back): qweight I32 [K, N/8], qzeros I32 [G, N/8] in the nibble order
 *   0,2,4,6,1,3,5,7, scales [G, N]. Needs uint4 weights, GROUP scales with K a multiple of the
 *   group size (or CHANNEL), N a multiple of 8, no act-order; a weight without zero point gets
 *   the midpoint 8 written as its zero point.
 * Errors: HUM_ERR_INVALID_ARG (NULL, count < 1, an invalid standard weight),
 * HUM_ERR_UNSUPPORTED (a weight the format cannot hold: named with the reason), HUM_ERR_IO (one
 * of those files already there, "<path> exists"; a write that failed). Nothing is written unless
 * every layer can be.
 */
typedef struct hum_checkpoint_write_options {
    int32_t gptq_v2;          /* GPTQ: 1 writes checkpoint_format "gptq_v2", 0 "gptq" (v1) */
    const char *architecture; /* config.json "architectures"[0], a class name (letters, digits
                               * and _; else HUM_ERR_INVALID_ARG); NULL: "LlamaForCausalLM" */
} hum_checkpoint_write_options;
hum_status hum_checkpoint_write_gptq(const char *dir, const char *const *layer_names,
                                     const hum_standard_weight *weights, int32_t count,
                                     const hum_checkpoint_write_options *opts);
hum_status hum_checkpoint_write_awq(const char *dir, const char *const *layer_names,
                                    const hum_standard_weight *weights, int32_t count,
                                    const hum_checkpoint_write_options *opts);

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
/* A CUDA driver entry point from the driver hum loaded: cuGetProcAddress of `name` at ABI
 * `abi_version`, the number its PFN type carries in <cudaTypedefs.h> (cuEventRecord: 2000),
 * with the legacy default stream. For tools that drive the GPU beside hum (`hum bench` times
 * with events and graphs) without loading the driver a second time. HUM_ERR_NO_DEVICE as the
 * device calls; HUM_ERR_CUDA naming the entry the driver lacks. */
hum_status hum_cuda_entry(const char *name, int32_t abi_version, void **fn);
/* HUM_OK for CUDA_SUCCESS (0); otherwise HUM_ERR_CUDA (HUM_ERR_OUT_OF_MEMORY for
 * CUDA_ERROR_OUT_OF_MEMORY) with "<what>: CUDA_ERROR_X (the driver's description)". */
hum_status hum_cuda_result(int32_t result, const char *what);

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
/* HUM_OK when NVRTC compiles for `arch` here; HUM_ERR_INVALID_ARG listing the accepted names;
 * HUM_ERR_COMPILE when the linked NVRTC gives no usable list of architectures (its query fails,
 * or names none from sm_75 on: a broken installation). */
hum_status hum_arch_check(const char *arch);
/* Every name hum_arch_check accepts, ", "-separated ("sm_75, sm_80, ..., sm_90a, ..."), into
 * out. HUM_ERR_INVALID_ARG when cap is too small; HUM_ERR_COMPILE when NVRTC lists none. */
hum_status hum_arch_list(char *out, size_t cap);
/* The architecture to compile for device `d`: "sm_<major><minor>", plus "a" from sm_90 on
 * (H200: "sm_90a"). HUM_ERR_INVALID_ARG when `cap` cannot hold it (8 bytes always can). */
hum_status hum_arch_for_device(const hum_device_info *d, char *out, size_t cap);

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

/* Frees the cubin and zeroes the result; NULL or zeroed is fine. */
void hum_jit_result_free(hum_jit_result *r);

/* $HUM_CACHE_DIR, else $XDG_CACHE_HOME/hum, else $HOME/.cache/hum; a variable set to the empty
 * string counts as unset (the XDG base-directory rule). HUM_ERR_IO when none of those is set;
 * HUM_ERR_INVALID_ARG when cap is too small. */
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
 * `hum demo` use, so that a second run is a cache hit). Errors: HUM_ERR_INVALID_ARG (a bad arch),
 * HUM_ERR_IO (no kernel source, no cache directory at all), HUM_ERR_COMPILE (NVRTC failed: the
 * message names the saved log). */
enum { HUM_SELFCHECK_SEED = 0x68756d21 };
hum_status hum_selfcheck_compile(const char *cache_dir, const char *arch, uint32_t seed, hum_jit_result *out);

/* ====================================================================================== */
/* Describing and tuning dispatch tables                                                    */
/* ====================================================================================== */
/* The dispatch table the policies in force give the weight (opts may be NULL) on the nominal
 * device of `arch` ("sm_80", "sm_90a"), or with arch NULL on the runtime's GPU; plans only:
 * nothing is compiled, nothing touches a GPU. Errors: those of hum_layer_compile without
 * HUM_ERR_COMPILE; HUM_ERR_NO_DEVICE for arch NULL on a runtime without a GPU. */
hum_status hum_layer_describe_plan(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                                   const char *arch, hum_layer_dispatch *out);

/* The exchange between hum_layer_prepare (C) and lua/hum/layer.lua's plan(); a tuning session
 * carries one. */
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
    hum_tuning entries[16]; /* HUM_LAYER_MAX_ENTRIES */
    char policy_name[64];
    char policy_origin[512];   /* the winning policy's file: "embedded:policies/sm90.lua" or a path */
    char entry_origin[16][256]; /* HUM_LAYER_MAX_ENTRIES: "file:line" of the policy line of each entry */
    char activation[1024];     /* what A runs as and why (hum_layer_dispatch.activation) */
} hum_layer_plan;

/*
 * A tuning session (`hum tune`, runtime/cli/cmd_tune.c, with lua/hum/tune.lua): Lua plans the
 * table in force, generates and fits candidate tunings for each of its M ranges and writes
 * policy files; the caller times the candidates and fills `us` and `dropped`.
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
    const char *candidates_file; /* C: the name of a Lua file that extends the candidates, or NULL */
    const char *candidates_text; /* C: that file's text (hum_file_read), candidates_size bytes */
    size_t candidates_size;
    const char *spec;           /* C: the layer SPEC, for the file's comments */
    int32_t reps;               /* C: timed calls per median, for the file's comments */
    int32_t range_count;        /* Lua (begin) */
    hum_tune_range ranges[16];  /* HUM_LAYER_MAX_ENTRIES */
    /* C sets text_range and text_candidate, Lua (policy_text) writes text: with text_range -1
     * the tuned file (each range its winner), else a file that gives every M of the layer class
     * candidate text_candidate of range text_range. */
    int32_t text_range, text_candidate;
    char text[65536];
} hum_tune_session;

/* Starts a session for weight `w` (opts may be NULL) on the runtime's GPU: plans its inputs
 * and target, then lua/hum/tune.lua's begin fills the table in force and each range's
 * candidates. The caller sets candidates_file (with its text: the caller reads the file, so that
 * it is refused or consumed before any GPU work), spec and reps first. Errors: those of
 * hum_layer_from_standard and hum_layer_prepare's planning; HUM_ERR_NO_DEVICE without a GPU. */
hum_status hum_tune_begin(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                          hum_tune_session *s);
/* Compiles every candidate of every range in parallel into the runtime's kernel cache, so that
 * preparing a layer for each later finds its kernels there; candidates the kernels refuse and
 * failed compiles are left for that prepare to report. Returns the compile requests made. */
int32_t hum_tune_precompile(hum_runtime *rt, const hum_tune_session *s);
/* lua/hum/tune.lua's pick: each range's winner from the times. */
hum_status hum_tune_pick(hum_runtime *rt, hum_tune_session *s);
/* Writes s->text: with range -1 the tuned policy file (each range its winner), else a file that
 * gives every M of the layer class candidate `candidate` of range `range`. */
hum_status hum_tune_policy_text(hum_runtime *rt, hum_tune_session *s, int32_t range, int32_t candidate);

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
 *   a         activation dtype float16 | bfloat16 (default float16), also the param dtype; or
 *             8-bit e4m3 | int8 | mxfp8, with ascale= token | tensor | group128 and out=
 *             (docs/cli.md)
 *   group     scale group size along K; 0 or absent: one scale per channel
 *   block     NxK, e.g. 128x128: float32 block scales, one per N rows x K columns (FP8 block-wise);
 *             no group, scale or global with it
 *   scale     scale dtype (default: the param dtype; e8m0, e4m3, float32, ...), or "tensor"
 *   global    1: group scales times a global scale (GROUP_TENSOR); default 0
 *   zp        none | int | float (default none)
 *   bias      0 | 1        actorder  0 | 1 (a random permutation of K)
 * Unknown keys and bad values are HUM_ERR_INVALID_ARG naming the key and what it takes; so is a
 * byte outside printable ASCII (a newline, 0xff), named by its value and offset.
 */
typedef struct hum_layer_spec {
    int64_t n, k;
    /* activation_dtype: what the GEMM multiplies (a=): float16 or bfloat16, or float8_e4m3fn or
     * int8 (activations quantized by the layer, or by the host: hum_layer_forward) */
    hum_dtype weight_dtype, activation_dtype, scale_dtype;
    hum_scale_type scale_type;
    int64_t group_size;
    int32_t zero_point; /* a hum_zero_point_kind */
    int32_t bias, act_order;
    /* out=: C's dtype, float16 or bfloat16 (the checkpoint's 16-bit type, also the weight's
     * param_dtype): the activation dtype when that is 16-bit, bfloat16 by default for 8-bit A */
    hum_dtype output_dtype;
    /* 8-bit A only (else TOKEN and 0): ascale= token (TOKEN), tensor (TENSOR), group128 (GROUP,
     * act_group 128, float32 scales); a=mxfp8 is e4m3 with GROUP and act_group 32 (e8m0 scales) */
    hum_act_scale act_scale;
    int32_t act_group;
    /* block=NxK: BLOCK scales (float32, one per group_size_n rows x group_size columns, as FP8
     * block-wise checkpoints' weight_scale_inv); else 0 */
    int64_t group_size_n;
} hum_layer_spec;

hum_status hum_layer_spec_parse(const char *spec, hum_layer_spec *out);
/* The spec as text that hum_layer_spec_parse reads back. HUM_ERR_INVALID_ARG if cap is short, or
 * for a spec built by hand that hum_layer_spec_parse would refuse (naming the field). */
hum_status hum_layer_spec_format(const hum_layer_spec *spec, char *out, size_t cap);
/* A random weight for the spec (normal values quantized by hum_quantize_reference; random bias
 * and act-order permutation), the same for the same seed on any machine. Its rows are drawn on
 * threads, as hum_quantize_reference quantizes them. Release with hum_standard_free.
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

/* ====================================================================================== */
/* Expert GEMMs                                                                           */
/* ====================================================================================== */
/* HUM-SECTION experts */
/*
 * Expert GEMMs: one projection of a MoE layer over its E local experts, as a case of the GEMM
 * core (GEMM types indexed, grouped_contiguous, grouped_masked). The layouts they read, and so
 * what the align, activation and combine steps around them write: docs/moe.md and
 * kernels/contract/moe_layout.h. The object is a hum_layer: hum_layer_prepare plans (the policy
 * sees compute.gemm_type and layer.num_experts; its M ranges count rows per expert, below),
 * compiles and uploads the E experts' weights; hum_layer_get_info, hum_layer_workspace_size
 * (the stream-K locks and partial tiles alone: the GEMM takes its A made), hum_workspace_create
 * and hum_layer_destroy work as for a dense layer; hum_layer_forward refuses it.
 */
typedef struct hum_expert_routing {
    /* indexed: tokens M (routed rows R = m * top_k, below 2^31); grouped_contiguous: rows T of A
     * and C; grouped_masked: rows T per expert */
    int64_t m;
    int32_t top_k;          /* indexed: experts per token; 1 for the down projection */
    int32_t block_m;        /* indexed: the block rows the sorted ids are padded to (hum_expert_gemm_block_m) */
    /* indexed, device int32: sorted routed rows [capacity], block experts [capacity / block_m],
     * the sorted row count [1] */
    const int32_t *sorted_token_ids;
    const int32_t *expert_ids;
    const int32_t *num_tokens_post_padded;
    int64_t capacity;       /* entries of sorted_token_ids, at least hum_moe_indexed_capacity */
    const int64_t *expert_offsets; /* grouped_contiguous, device int64 [E + 1] */
    const int32_t *expert_counts;  /* grouped_masked, device int32 [E] */
} hum_expert_routing;

/* An expert GEMM of `type` (a MoE type) over the E = w->num_experts (>= 1) experts of w, which is
 * copied (opts as for hum_layer_from_standard), with w's global scales folded into its scales as
 * hum_moe_from_standard does. Errors: HUM_ERR_INVALID_ARG (NULL, a dense
 * type, a weight without experts or hum_standard_validate refuses); HUM_ERR_OUT_OF_MEMORY. What
 * the kernels do not take fails at hum_layer_prepare (HUM_ERR_UNSUPPORTED naming it). */
hum_status hum_expert_gemm_from_standard(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                                         hum_gemm_type type, hum_layer **out);

/* The rows per expert an expert GEMM launch dispatches on (its policy's M): indexed
 * ceil(m * top_k / E), grouped_contiguous ceil(m / E), grouped_masked m; at least 1. -1 for a
 * NULL config, another type, m < 0, top_k < 1 or m * top_k past INT64_MAX. */
int64_t hum_expert_gemm_rows(const hum_layer_config *config, hum_gemm_type type, int64_t m, int32_t top_k);

/* The block rows of the entry in force for r->m and r->top_k (what the align pads to), through
 * ws's hazard slot: no lock, safe beside forwards. Errors: HUM_ERR_INVALID_ARG (NULL, an
 * unprepared or dense layer, m < 1, top_k < 1). */
hum_status hum_expert_gemm_block_m(hum_layer *gemm, hum_workspace *ws, const hum_expert_routing *r, int32_t *block_m);

/* C = the expert GEMM of A on `stream` with routing r: asynchronous, no allocation, no lock, no
 * Lua, no host sync (the sorted row count stays on the GPU; the persistent grid of at most SMs x
 * CTAs per SM covers the capacity); CUDA-graph capturable. Tensors as in hum_layer_forward_ws
 * (rank 2, the layer's A type, c the output dtype, the same alignment rules):
 *   indexed             a [m, K], c [m * top_k, N]
 *   grouped_contiguous  a [m, K], c [m, N]
 *   grouped_masked      a [E * m, K], c [E * m, N]
 * a_scale: NULL for 16-bit A; 8-bit A (config.a_dtype float8_e4m3fn or int8, per token: the
 * expert GEMM does not quantize) takes float32 device [rows of a], row r's activation being
 * a[r] * a_scale[r]: a gathered row of A (indexed) brings its own scale, applied with the
 * weight's column scale in float32 in the epilogue; MXFP8 A (e4m3 with config.a_group 32,
 * hum_layer_options.activation_group) takes e8m0 bytes [rows of a, ceil(K / 32)] with
 * contiguous rows, row r's group g scaling columns 32 g .. 32 g + 31 of a[r], applied where
 * the accumulators are promoted. A GEMM whose config.a_round is mxfp8 does not round either: a
 * holds 16-bit rows already rounded through mxfp8 (hum_quantize_activations with a 16-bit q), as
 * hum_moe_forward makes them; its plan's note ("rounded by the layer") speaks of the MoE layer.
 * Rows no block covers are neither read nor written. m == 0 does nothing. Errors:
 * HUM_ERR_INVALID_ARG naming the tensor or routing field and what was expected (an indexed
 * block_m other than the entry's: the sorted ids were padded for another tuning);
 * HUM_ERR_CUDA when the launch fails. */
hum_status hum_expert_gemm_forward(hum_layer *gemm, hum_workspace *ws, struct CUstream_st *stream, const hum_tensor *a,
                                   const hum_tensor *a_scale, const hum_tensor *c, const hum_expert_routing *r);

/* hum_layer_compile_spec for an expert GEMM of `type` over `experts` experts of the spec's
 * shape (CPU only, any arch). */
hum_status hum_expert_gemm_compile_spec(hum_runtime *rt, const hum_layer_spec *spec, int64_t experts,
                                        hum_gemm_type type, const char *arch, hum_layer_info *out);
/* hum_layer_describe_spec for that expert GEMM alone: its dispatch table and what its A runs as
 * (the moe.activation override applies), planned only (arch NULL: the runtime's GPU) from its own
 * facts (compute.moe_*, docs/policies.md), as hum_expert_gemm_from_standard's GEMM is prepared.
 * The two GEMMs of a MoE layer are planned from the facts of both, which can give either another
 * table: hum_moe_describe_spec describes those. */
hum_status hum_expert_gemm_describe_spec(hum_runtime *rt, const hum_layer_spec *spec, int64_t experts,
                                         hum_gemm_type type, const char *arch, hum_layer_dispatch *out);

/* ====================================================================================== */
/* MoE routing layout                                                                     */
/* ====================================================================================== */
/* HUM-SECTION moe */
/*
 * How a MoE forward lays out its M * top_k slots (slot i: token i / top_k, its (i % top_k)-th
 * expert) for the expert GEMMs; kernels/moe/align.cu computes it on the GPU, and this twin on
 * the host defines it:
 *   sorted[rows]          slot ids grouped by local expert, experts in ascending order, each
 *                         expert's run padded with the sentinel M * top_k to a multiple of
 *                         block_m (the twin lists a run's slots in ascending order; the kernel
 *                         in any order: compare runs as sets)
 *   expert_ids[rows / block_m]  the local expert of each block of block_m rows; -1 for the
 *                         blocks past the padded total
 *   offsets[e_local + 1]  the first row of each expert's run; offsets[e_local]: the padded total
 *   *post_padded          the padded total (rows from there on are not written)
 * with rows = hum_moe_align_rows(M * top_k, e_local, block_m). A slot's expert is its id in
 * topk_ids mapped through expert_map (int32 [e_global]: the local expert, or -1 when it is not
 * on this rank) or, with expert_map NULL, the id itself; an id outside [0, e_global), or mapped
 * outside [0, e_local), drops the slot (it is in no run: the MoE output gets nothing from it).
 */
/* The rows of the layout for `numel` slots: numel + min(e_local, numel) * (block_m - 1), the
 * most the padded runs can take, rounded up to a multiple of block_m (the capacity of
 * kernels/contract/moe_layout.h). -1 for a negative argument, block_m < 1, e_local < 1 or rows
 * past INT64_MAX. */
int64_t hum_moe_align_rows(int64_t numel, int64_t e_local, int32_t block_m);
/* The layout for topk_ids (host, int32 or int64, [M, top_k] with M >= 0, contiguous) into host
 * arrays of the sizes above. Errors: HUM_ERR_INVALID_ARG (NULL output, topk_ids not a host
 * rank-2 int32/int64 contiguous tensor, e_global < 1 or e_local < 1, block_m < 1, more than
 * 2^31 - 1 rows). */
hum_status hum_moe_align_reference(const hum_tensor *topk_ids, const int32_t *expert_map, int32_t e_global,
                                   int32_t e_local, int32_t block_m, int32_t *sorted, int32_t *expert_ids,
                                   int32_t *offsets, int32_t *post_padded);

/* The MoE layer (hum.h, HUM-SECTION moe) in float64, the reference the GPU forward is tested
 * against: out[M][H] = sum over the slots j of token t whose expert is kept (as the layout
 * above keeps it, e_global = opts->global_experts or w13's E) of topk_weights[t * top_k + j]
 * * down_e(act(gate_up_e(hidden[t]))), each GEMM with its expert's bias, the activation as
 * opts says (opts->experts is ignored: w13 and w2 are the experts the layer keeps, [E_local,
 * ...]). hidden [M][H]; topk_ids a host int32 or int64 tensor [M, opts->top_k]; topk_weights
 * float32 [M * top_k]; expert_map int32 [e_global] or NULL. A token with no kept expert gets 0.
 * as_run NULL: float64 throughout. Else the rows each GEMM multiplies are those the layer holds
 * (hum_moe_info's GEMM configs say which): the gate/up output rounded to the 16-bit type
 * `held`; a GEMM of 8-bit A (float8_e4m3fn or int8) multiplies its rows quantized per token
 * (or per group along K: the groups below) as the layer quantizes them
 * (hum_quantize_activations: hidden from `held`, the activation's output from float32) times
 * their scales, so that only the accumulation differs from the GPU's; a GEMM of 16-bit A the
 * activation's output rounded to `held`, or through mxfp8 into `held` where it rounds (the
 * rounds below; its hidden rows too), and float codes' weights as it holds them: each scale
 * (times the global scale, in float32) rounded to `held`, and decode(q) times it rounded to
 * `held` (through a rounding to mxfp8 between the GEMMs, that rounding alone moves the output by
 * ~1.2e-2: tests/c/test_moe_activation.c). Integer codes stay exact: a 16-bit GEMM holds
 * (q - z) * scale in `held` too where its scales are not on the float32 sums, which moves the
 * output by about the 16-bit type's rounding, within the GPU tests' bars.
 * Errors: HUM_ERR_INVALID_ARG (NULL, weights that do not chain, topk_ids of another shape or
 * type, an as_run type outside those above), those of hum_reference_gemm, HUM_ERR_OUT_OF_MEMORY. */
typedef struct hum_moe_numerics {
    hum_dtype held;      /* float16 or bfloat16: the hidden rows and the rows between the GEMMs */
    hum_dtype gate_up_a; /* the A type of each GEMM: `held`, float8_e4m3fn or int8 */
    hum_dtype down_a;
    /* 8-bit A's scales of each GEMM (its config.a_group): 0 one per row; else float8_e4m3fn
     * scaled per group of that many columns, e8m0 powers of two for 32 (MXFP8), else float32 */
    int32_t gate_up_group, down_group;
    /* each GEMM's config.a_round (hum_a_round; its A `held`): MXFP8 rounds its rows through
     * mxfp8 into `held` (hum_quantize_activations with a 16-bit q: the hidden rows from `held`,
     * the activation's output from float32) */
    int32_t gate_up_round, down_round;
} hum_moe_numerics;
hum_status hum_moe_reference(const hum_standard_weight *w13, const hum_standard_weight *w2,
                             const hum_moe_options *opts, const double *hidden, const hum_tensor *topk_ids,
                             const float *topk_weights, const int32_t *expert_map, const hum_moe_numerics *as_run,
                             double *out);

/*
 * A MoE layer described by a SPEC string, for `hum bench --moe`, `hum compile --moe` and tests:
 * the keys of the gate/up projection as hum_layer_spec_parse reads them (n = 2I, or I for
 * relu2; k = H; w, a, group, scale, global, zp, bias; not actorder), plus
 *   e        experts (required, 1..4096)       topk   experts per token (required, <= e)
 *   act      silu | swiglu_oai | relu2 | gelu (default silu)
 *   gate_up  split | interleaved (default split; relu2 takes split, having no gate)
 *   gemm     indexed | grouped | masked: the expert GEMM type (default indexed)
 * e.g. "e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128". The down projection has
 * n = H and k = I with the same types. Errors: HUM_ERR_INVALID_ARG naming the key and what it
 * takes; HUM_ERR_UNSUPPORTED for actorder=1.
 */
enum { HUM_MOE_SPEC_MAX_EXPERTS = 4096 };
typedef struct hum_moe_spec {
    hum_layer_spec gate_up;  /* the gate/up projection of one expert */
    int32_t experts, top_k;
    int32_t activation;      /* hum_moe_activation */
    int32_t gate_up_layout;  /* hum_moe_gate_up */
    int32_t gemm_type;       /* hum_gemm_type: HUM_GEMM_MOE_INDEXED, _GROUPED_CONTIGUOUS or _GROUPED_MASKED */
} hum_moe_spec;
hum_status hum_moe_spec_parse(const char *spec, hum_moe_spec *out);
/* The spec as text that hum_moe_spec_parse reads back. HUM_ERR_INVALID_ARG if cap is short, or
 * for a spec built by hand that hum_moe_spec_parse would refuse (naming the field). */
hum_status hum_moe_spec_format(const hum_moe_spec *spec, char *out, size_t cap);
/* The down projection of one expert of a spec: n = H, k = I, the gate/up projection's types.
 * Nothing is written when either pointer is NULL. */
void hum_moe_spec_down(const hum_moe_spec *spec, hum_layer_spec *down);
/* Random expert weights for a spec: expert e of w13 is hum_layer_spec_weight's weight of the
 * gate/up projection for seed + e, and likewise for w2 (another seed), stacked along E
 * (release both with hum_standard_free). Errors: a spec hum_moe_spec_parse would refuse
 * (HUM_ERR_INVALID_ARG naming the field, HUM_ERR_UNSUPPORTED for act-order), then those of
 * hum_layer_spec_weight. */
hum_status hum_moe_spec_weights(const hum_moe_spec *spec, uint64_t seed, hum_standard_weight *w13,
                                hum_standard_weight *w2);

/* What hum_moe_from_safetensors loads, as standard weights (owned by the caller: free both with
 * hum_standard_free), and the options the layer is made with: opts with the experts already cut
 * (experts NULL), the global experts of the checkpoint when opts leaves them 0, and
 * HUM_MOE_GATE_UP_SPLIT for separate gate and up projections. For `hum run --check` and
 * `hum demo --moe`, which need the weights for the float64 reference. Errors: those of
 * hum_moe_from_safetensors but for hum_moe_from_standard's. */
hum_status hum_moe_load_standard(hum_runtime *rt, const char *path, const char *name, const hum_moe_options *opts,
                                 hum_standard_weight *w13, hum_standard_weight *w2, hum_moe_options *resolved);

/* The five steps of hum_moe_forward, in order. */
typedef enum hum_moe_step {
    HUM_MOE_STEP_ALIGN = 0,   /* the routing layout (kernels/moe/align.cu) */
    HUM_MOE_STEP_GATE_UP = 1, /* the gate/up expert GEMM */
    HUM_MOE_STEP_ACT = 2,     /* the activation (kernels/moe/act.cu) */
    HUM_MOE_STEP_DOWN = 3,    /* the down expert GEMM */
    HUM_MOE_STEP_COMBINE = 4, /* the weighted sum per token (kernels/moe/combine.cu) */
    HUM_MOE_STEPS = 5
} hum_moe_step;
/* hum_moe_forward (hidden_scale NULL) or hum_moe_forward_quantized (a layer of quantized
 * hidden: its scales) running only its steps first..last (hum_moe_step), for timing each step
 * (`hum bench --moe`): the steps before `first` must have run through the same workspace with
 * the same inputs, and no policy reload (hum_runtime_reload_policies, hot_reload) may have
 * changed the layer's tables since: each call lays out the workspace's areas and pads the
 * routing to the gate/up table's block M anew. Errors: those of hum_moe_forward;
 * HUM_ERR_INVALID_ARG for steps out of order or a workspace that does not hold M tokens in one
 * pass while not all steps run. */
hum_status hum_moe_forward_steps(hum_moe *moe, hum_workspace *ws, struct CUstream_st *stream,
                                 const hum_tensor *hidden, const hum_tensor *hidden_scale, const hum_tensor *topk_ids,
                                 const hum_tensor *topk_weights, const hum_tensor *expert_map, const hum_tensor *out,
                                 int32_t accumulate, int32_t first, int32_t last);

/* What a CPU-only compile of a MoE layer did: both expert GEMMs' tables (planned for the arch's
 * nominal device) and the counts over every kernel, the six around the GEMMs included. */
typedef struct hum_moe_compile_info {
    hum_layer_info gate_up, down;
    /* what each GEMM's A runs as and why (hum_layer_dispatch.activation): "e4m3 per token
     * (override moe.activation = e4m3; quantized by the layer)", "bfloat16 (fallback from ...)" */
    char gate_up_activation[1024];
    char down_activation[1024];
    int32_t kernels_compiled, kernels_cached;
    double compile_ms;
} hum_moe_compile_info;
/* Compiles every kernel the layer of w13, w2 and opts (as hum_moe_from_standard takes them)
 * needs on `arch`, through the kernel cache, no GPU needed (`hum demo --moe` without a GPU).
 * Errors: those of hum_moe_from_standard and hum_moe_prepare but the GPU ones; HUM_ERR_INVALID_ARG
 * for an arch NVRTC does not take. */
hum_status hum_moe_compile(hum_runtime *rt, const hum_standard_weight *w13, const hum_standard_weight *w2,
                           const hum_moe_options *opts, const char *arch, hum_moe_compile_info *out);
/* The same for the layer of a spec, from its shapes and types alone (`hum compile --moe`), on
 * the spec's GEMM type (indexed unless gemm= says grouped or masked). */
hum_status hum_moe_compile_spec(hum_runtime *rt, const hum_moe_spec *spec, const char *arch, hum_moe_compile_info *out);
/* What the layer of a spec runs, planned only, on the spec's GEMM type (`hum info --moe`): out[0]
 * the gate/up GEMM's dispatch table, out[1] the down GEMM's, each with what its A runs as, from
 * the facts of both (arch NULL: the runtime's GPU). Errors: those of hum_moe_compile_spec's planning (HUM_ERR_POLICY
 * where the tables give a range of rows per expert two block_m); HUM_ERR_NO_DEVICE without arch
 * and GPU. */
hum_status hum_moe_describe_spec(hum_runtime *rt, const hum_moe_spec *spec, const char *arch, hum_layer_dispatch out[2]);

#ifndef HUM_CDEF
#ifdef __cplusplus
}
#endif
#endif
#endif /* HUM_TOOLS_H */
