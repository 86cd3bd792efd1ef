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

/* Checks one tuning against the kernel's shape rules for `config` (derived fields filled) and
 * gives its dynamic shared memory in bytes and its threads per CTA (either pointer may be NULL).
 * HUM_ERR_UNSUPPORTED naming the rule it breaks. lua/hum/dispatch.lua fits tunings with it. */
hum_status hum_layer_tuning_check(const hum_layer_config *config, const hum_tuning *tuning, int64_t *smem_bytes,
                                  int32_t *threads);

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
