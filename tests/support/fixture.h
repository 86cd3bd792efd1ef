/* Fixture checkpoints for the format tests: each writer lays out a checkpoint directory exactly as
 * the producing tool does (tensor names, dtypes, shapes, packing, config files) from raw values
 * the test chose. Packing here is written bit by bit, independently of the runtime's primitives. */
#ifndef HUM_FIXTURE_H
#define HUM_FIXTURE_H

#include "hum/hum_tools.h"

#include <stdint.h>

/* --- containers -------------------------------------------------------------------------- */

typedef struct fx_file {
    hum_safetensors_tensor t[64];
    int n;
} fx_file;

/* Adds a tensor (data copied) of `rank` dims given as varargs int64_t. */
void fx_add(fx_file *f, const char *name, const char *dtype_name, const void *data, int rank, ...);
/* "<layer>.<suffix>" in a static rotating buffer. */
const char *fx_name(const char *layer, const char *suffix);
/* Writes `f` to dir/file_name and frees the copies; returns 0 on success. */
int fx_flush(fx_file *f, const char *dir, const char *file_name);
/* Adds the dense tensors every real checkpoint carries (embeddings, a norm, lm_head). */
void fx_add_dense(fx_file *f);
/* Writes dir/name with printf-style content; returns 0 on success. */
int fx_write_json(const char *dir, const char *name, const char *fmt, ...);
/* One checkpoint in `dir` (dir/model.safetensors) from several that the writers below made, one
 * module each: every tensor of every part, a name an earlier part already gave skipped (the
 * dense tensors each writer adds), and the config files of parts[0]; returns 0 on success. */
int fx_merge(const char *dir, const char *const *parts, int count);

/* --- bit packing (reference, bit by bit) ---------------------------------------------------- */

/* Dense LSB-first stream: value i at bits [i*bits, (i+1)*bits) of the word array. */
void fx_pack_dense(const uint8_t *vals, int64_t count, int bits, uint32_t *words);
/* compressed-tensors <= 0.17: 32/bits values per word at bits i*bits, high bits unused. */
void fx_pack_sparse(const uint8_t *vals, int64_t count, int bits, uint32_t *words);
/* float helpers */
uint16_t fx_f16_bits(double v);  /* v must be exactly representable */
uint16_t fx_bf16_bits(double v); /* v must be exactly representable */
double fx_f16_value(uint16_t bits);
double fx_bf16_value(uint16_t bits);
double fx_e4m3_value(uint8_t code);
double fx_e2m1_value(uint8_t code);

/* --- formats ------------------------------------------------------------------------------ */

/* GPTQ (AutoGPTQ / GPTQModel / optimum): qweight I32 [K*b/32, N] packed along K, qzeros I32
 * [G, N*b/32] packed along N holding z - 1 (checkpoint_format "gptq") or z ("gptq_v2"), scales
 * F16 [G, N], g_idx I32 [K], optional bias F16 [N]. v1 "- 1" as AutoGPTQ writes it (field by
 * field, masked), or with gptqmodel set as GPTQModel does: z packed, then the per-field ones
 * constant subtracted from whole words (a zero of 0 borrows from the next field), and
 * meta.quantizer ["gptqmodel:..."] in the config. */
typedef struct fx_gptq {
    int bits;
    int64_t group_size; /* -1: one group over K */
    int64_t n, k;
    int sym, desc_act, v2, gptqmodel;
    const uint8_t *q;      /* [K][N] codes */
    const uint8_t *zero;   /* [G][N] true zero points */
    const uint16_t *scale; /* [G][N] float16 bits */
    const int32_t *g_idx;  /* [K] */
    const uint16_t *bias;  /* [N] float16 bits or NULL */
} fx_gptq;
int fx_write_gptq(const char *dir, const char *layer, const fx_gptq *w);

/* AWQ GEMM (AutoAWQ): qweight I32 [K, N/8] and qzeros I32 [G, N/8], both packed along N with the
 * nibble order 0,2,4,6,1,3,5,7; scales F16 [G, N]. */
typedef struct fx_awq {
    int64_t group_size, n, k;
    const uint8_t *q;      /* [K][N] */
    const uint8_t *zero;   /* [G][N] */
    const uint16_t *scale; /* [G][N] */
    const uint16_t *bias;
} fx_awq;
int fx_write_awq(const char *dir, const char *layer, const fx_awq *w);

/* compressed-tensors (llm-compressor), one config group targeting Linear. By format:
 *   pack-quantized: weight_packed I32 [N, words] along K (dense stream for version >= 0.18,
 *     32/b values per word before), weight_shape I64, asym weight_zero_point I32 packed along
 *     N; values are the signed ints + 2^(b-1);
 *   int-quantized / naive-quantized (int): weight I8 [N, K], asym weight_zero_point I8 [N, G];
 *   float-quantized / naive-quantized (float): weight F8_E4M3 [N, K];
 *   nvfp4-pack-quantized: weight_packed U8 [N, K/2] low nibble first, weight_scale F8_E4M3
 *     [N, K/16], weight_global_scale F32 [1]; mxfp4-pack-quantized: weight_scale U8 [N, K/32];
 *   weight_g_idx I32 [K] with actorder "group". 3-D [E, N, ...] when experts > 0 (g_idx [E, K]). */
typedef struct fx_ct {
    const char *format, *version;
    const char *type;     /* "int" or "float" */
    const char *strategy; /* "tensor", "channel", "group", "block", "tensor_group" */
    int bits, sym, actorder;
    int64_t group_size, block_n, block_k;
    int64_t experts, n, k;
    const int8_t *q_int;     /* [E][N][K] signed values (int formats) */
    const uint8_t *q_codes;  /* [E][N][K] fp8 or e2m1 codes (float formats) */
    const int8_t *zero;      /* [E][N][G] signed zero points (asym) */
    const void *scale;       /* [E][rows][cols] of scale_dtype ([E] or [1] for tensor) */
    const char *scale_dtype; /* "BF16", "F16", "F32", "F8_E4M3", "U8" */
    int64_t scale_rows, scale_cols;
    float global;            /* nvfp4 weight_global_scale */
    const int32_t *g_idx;    /* [K], or [E][K] with experts */
    /* the config group's input_activations as JSON (NULL: null); float formats, and integer
     * ones that have input_activations, also write input_scale F32 [1] = 2^-4 */
    const char *input_activations;
} fx_ct;
int fx_write_ct(const char *dir, const char *layer, const fx_ct *w);

/* ModelOpt unified HF export (hf_quant_config.json + config.json quant_method "modelopt"):
 * FP8 (weight_scale F32 []), FP8_PER_CHANNEL_PER_TOKEN (weight_scale F32 [N]), NVFP4 (weight U8
 * [N, K/2], weight_scale F8_E4M3 [N, K/16], weight_scale_2 F32 []), MXFP8 (weight_scale U8). */
typedef struct fx_modelopt {
    const char *algo;
    int64_t n, k, group_size;
    const uint8_t *codes; /* [N][K]: fp8 codes, or e2m1 codes for NVFP4 */
    const void *scale;    /* F32 scalar / [N], F8_E4M3 or U8 codes */
    float scale_2;
} fx_modelopt;
int fx_write_modelopt(const char *dir, const char *layer, const fx_modelopt *w);

/* quant_method "fp8" (DeepSeek-V3): weight F8_E4M3 [N, K], weight_scale_inv [ceil(N/bn), ceil(K/bk)]. */
typedef struct fx_fp8_block {
    int64_t n, k, block_n, block_k;
    const uint8_t *codes;
    const void *scale; /* of scale_dtype */
    const char *scale_dtype; /* "F32" or "F8_E8M0" */
} fx_fp8_block;
int fx_write_fp8_block(const char *dir, const char *layer, const fx_fp8_block *w);

/* gpt-oss MXFP4 experts: <proj>_blocks U8 [E, N, K/32, 16], <proj>_scales U8 [E, N, K/32],
 * <proj>_bias BF16 [E, N], for proj = prefix (e.g. model.layers.0.mlp.experts.gate_up_proj). */
typedef struct fx_gptoss {
    int64_t experts, n, k;
    const uint8_t *codes;  /* [E][N][K] e2m1 codes */
    const uint8_t *scales; /* [E][N][K/32] */
    const uint16_t *bias;  /* [E][N] bf16 bits */
} fx_gptoss;
int fx_write_gptoss(const char *dir, const char *proj, const fx_gptoss *w);

/* BitNet b1.58: weight U8 [N/4, K] planar along N holding t + 1, weight_scale BF16 [1]. */
typedef struct fx_bitnet {
    int64_t n, k;
    const int8_t *t; /* [N][K] in {-1, 0, 1} */
    uint16_t scale;  /* bf16 bits */
    const char *linear_class;
} fx_bitnet;
int fx_write_bitnet(const char *dir, const char *layer, const fx_bitnet *w);

#endif
