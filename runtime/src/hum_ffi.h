/*
 * hum_ffi.h: what the Lua layer sees of libhum through the LuaJIT FFI: the installed headers,
 * plus the declarations only Lua and libhum exchange (the layer plan, the format converters'
 * call and their host data moves). Not installed. The build preprocesses this file with
 * HUM_CDEF defined into hum_cdef.h, the text of ffi.cdef, and tools/symgen.c lists its
 * functions into the FFI's symbol table and libhum.so's export list: one list for both.
 */
#ifndef HUM_FFI_H
#define HUM_FFI_H

#include "hum/hum.h"
#include "hum/hum_tools.h"

/* The field lists of hum.h as a table, for lua/hum/: one row per field, layer config first, then
 * compute config, then tuning, each in declaration order. */
typedef enum hum_config_id { HUM_CONFIG_LAYER = 0, HUM_CONFIG_COMPUTE = 1, HUM_CONFIG_TUNING = 2 } hum_config_id;
typedef enum hum_field_kind {
    HUM_FIELD_INT = 0,
    HUM_FIELD_BOOL = 1,
    HUM_FIELD_DTYPE = 2,
    HUM_FIELD_ENUM = 3
} hum_field_kind;
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
 * rules live in runtime/src/layer/gemm_variant.c and gemm_wgmma.c; planning applies the same. */
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
/* The K extent of one promotion period when `config` (derived fields filled) has scales that
 * change along K with e4m3 activations (kernels/gemm/kscale.cuh: A in groups, or the weight's
 * float32 scales along K), else 0. lua/hum/activation.lua runs such an expert GEMM only when asked. */
int64_t hum_layer_kgroup_k(const hum_layer_config *config);
/* 1 when `config`'s A runs as 8-bit codes with their scales (float8_e4m3fn or int8), else 0: C's
 * rule (hum_gemm_a8), which lua/hum/layer.lua applies and hands the policies as layer.a8. */
int32_t hum_layer_a8(const hum_layer_config *config);

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
/* Appends a copy of *item (used by the Lua listing). */
hum_status hum_layer_list_append(hum_layer_list *list, const hum_layer_summary *item);

/*
 * Host data moves used by the format converters (the formats/ Lua files call them through the
 * FFI, so no Lua loop ever touches tensor elements). Element sizes are in bytes (1, 2, 4 or 8); every
 * function checks its arguments and fails with HUM_ERR_INVALID_ARG before writing anything.
 */
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

#endif
