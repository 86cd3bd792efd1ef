"""The part of hum.h this package calls, as C text that _capi.py turns into ctypes.

Each declaration is copied from runtime/include/hum/hum.h (comments dropped); the test
tests/test_cdef.py checks every one against the preprocessed header and every struct's size and
field offsets against the C compiler, so a change of hum.h that this text misses fails CI.
"""

CDEF = r"""
typedef enum hum_status { HUM_OK = 0, HUM_ERR_INVALID_ARG = 1, HUM_ERR_NO_DEVICE = 2, HUM_ERR_CUDA = 3,
    HUM_ERR_COMPILE = 4, HUM_ERR_IO = 5, HUM_ERR_FORMAT = 6, HUM_ERR_UNSUPPORTED = 7, HUM_ERR_CONFIG = 8,
    HUM_ERR_POLICY = 9, HUM_ERR_OUT_OF_MEMORY = 10, HUM_ERR_INTERNAL = 11 } hum_status;
typedef struct hum_runtime hum_runtime;
typedef struct hum_layer hum_layer;
typedef struct hum_workspace hum_workspace;
typedef struct hum_checkpoint hum_checkpoint;
typedef uint32_t hum_dtype;
typedef enum hum_memory { HUM_MEMORY_HOST = 0, HUM_MEMORY_DEVICE = 1 } hum_memory;
typedef enum hum_scale_type { HUM_SCALE_CHANNEL = 0, HUM_SCALE_GROUP = 1, HUM_SCALE_BLOCK = 2, HUM_SCALE_TENSOR = 3,
    HUM_SCALE_GROUP_TENSOR = 4 } hum_scale_type;
typedef enum hum_zero_point_kind { HUM_ZERO_POINT_NONE = 0, HUM_ZERO_POINT_INT = 1, HUM_ZERO_POINT_FLOAT = 2 }
    hum_zero_point_kind;
typedef enum hum_shard_dim { HUM_SHARD_NONE = 0, HUM_SHARD_COLUMN = 1, HUM_SHARD_ROW = 2 } hum_shard_dim;

typedef struct hum_tensor { void *data; hum_dtype dtype; int32_t rank; int64_t shape[4]; int64_t strides[4];
    hum_memory memory; } hum_tensor;
typedef enum hum_act_scale { HUM_ACT_SCALE_TOKEN = 0, HUM_ACT_SCALE_TENSOR = 1, HUM_ACT_SCALE_GROUP = 2 } hum_act_scale;
typedef struct hum_standard_weight { int64_t num_experts; int64_t n, k; hum_dtype weight_dtype; hum_dtype param_dtype;
    hum_tensor weight; hum_scale_type scale_type; int64_t group_size; int64_t group_size_n; hum_dtype scale_dtype;
    hum_tensor scale; int32_t has_zero_point; int32_t zero_point_is_float; hum_tensor zero_point;
    hum_tensor global_scale; hum_tensor bias; hum_tensor k_perm; hum_dtype act_dtype; hum_act_scale act_scale;
    int32_t act_group; hum_tensor input_scale; } hum_standard_weight;
typedef struct hum_shard { int32_t dim; int32_t rank, world; const int32_t *experts; int64_t expert_count; } hum_shard;
typedef struct hum_layer_options { hum_dtype activation_dtype; hum_shard shard; hum_dtype output_dtype;
    int32_t activation_group; } hum_layer_options;
typedef struct hum_runtime_options { const char *config_path; int32_t device_ordinal; const char *cache_dir; }
    hum_runtime_options;
typedef struct hum_device_info { char name[256]; int32_t ordinal; int32_t sm_major, sm_minor; int32_t sm_count;
    int64_t max_smem_per_block_optin; int64_t l2_bytes; int64_t total_memory_bytes; int32_t driver_version; }
    hum_device_info;
typedef struct hum_layer_config { int64_t n; int64_t k; int64_t num_experts; hum_dtype a_dtype; hum_dtype c_dtype;
    int64_t a_group; int32_t a_scale; int32_t a_fixed; hum_dtype weight_dtype; hum_dtype param_dtype; hum_dtype scale_dtype; hum_scale_type scale_type; int64_t group_size;
    int64_t group_size_n; int32_t zero_point; int32_t has_bias; int32_t act_order; int32_t has_global_scale; int64_t
    padded_n; int64_t padded_k; int64_t kernel_group; int64_t scale_rows; int32_t has_scale; int32_t has_zero_point;
    int32_t weight_float; int32_t weight_bits; int32_t weight_exp; int32_t exp_compensation; } hum_layer_config;
typedef struct hum_tuning { int64_t m_min, m_max; int32_t block_m; int32_t block_n; int32_t block_k; int32_t warp_m;
    int32_t warp_n; int32_t warp_k; int32_t stages; int32_t stream_k; int32_t ctas_per_sm; int32_t kernel;
    int32_t stream_k_sum; } hum_tuning;
typedef struct hum_layer_info { hum_layer_config config; int32_t prepared; int32_t entry_count; hum_tuning entries[8];
    char policy_name[64]; char arch[16]; double prepare_ms; double compile_ms; int32_t kernels_compiled;
    int32_t kernels_cached; int32_t scale_exponent; float out_factor; int64_t device_bytes; uint64_t generation;
    double plan_ms; double context_ms; double upload_ms; double load_ms; int64_t input_k; } hum_layer_info;
typedef struct hum_layer_summary { char name[512]; char format[64]; hum_dtype weight_dtype; int32_t bits;
    char scale[32]; int64_t group_size; int32_t symmetric; int32_t act_order; int64_t n, k, num_experts;
    char activations[32]; char error[512]; }
    hum_layer_summary;
typedef struct hum_layer_list { hum_layer_summary *items; int64_t count, capacity; } hum_layer_list;
typedef struct hum_quant_spec { int64_t num_experts; hum_dtype weight_dtype; hum_dtype param_dtype;
    hum_scale_type scale_type; int64_t group_size; int64_t group_size_n; hum_dtype scale_dtype;
    hum_zero_point_kind zero_point; const float *bias; const int32_t *k_perm; } hum_quant_spec;
typedef struct hum_checkpoint_write_options { int32_t gptq_v2; const char *architecture; }
    hum_checkpoint_write_options;
typedef struct hum_layer_spec { int64_t n, k; hum_dtype weight_dtype, activation_dtype, scale_dtype;
    hum_scale_type scale_type; int64_t group_size; int32_t zero_point; int32_t bias, act_order;
    hum_dtype output_dtype; hum_act_scale act_scale; int32_t act_group; } hum_layer_spec;

const char *hum_last_error(void);
const char *hum_status_name(hum_status status);
const char *hum_version(void);
hum_status hum_dtype_parse(const char *name, hum_dtype *out);
const char *hum_dtype_name(hum_dtype t);
hum_status hum_device_count(int32_t *count);
void hum_runtime_options_init(hum_runtime_options *opts);
hum_status hum_runtime_create(const hum_runtime_options *opts, hum_runtime **out);
void hum_runtime_destroy(hum_runtime *rt);
hum_status hum_runtime_device(const hum_runtime *rt, hum_device_info *out);
const char *hum_runtime_cache_dir(const hum_runtime *rt);
const char *hum_runtime_config_path(const hum_runtime *rt);
hum_status hum_runtime_reload_policies(hum_runtime *rt);
int32_t hum_runtime_policy_count(const hum_runtime *rt);
const char *hum_runtime_policy_origin(const hum_runtime *rt, int32_t i);
void hum_standard_free(hum_standard_weight *w);
hum_status hum_standard_validate(const hum_standard_weight *w);
hum_status hum_standard_shard(const hum_standard_weight *w, const hum_shard *shard, hum_standard_weight *out);
hum_status hum_standard_concat(const hum_standard_weight *parts, int32_t count, hum_standard_weight *out);
hum_status hum_reference_dequant(const hum_standard_weight *w, int64_t expert, double *out);
hum_status hum_reference_gemm(const hum_standard_weight *w, int64_t expert, const double *a, int64_t m, double *c);
hum_status hum_quantize_reference(const float *w, int64_t n, int64_t k, const hum_quant_spec *spec,
    hum_standard_weight *out);
hum_status hum_checkpoint_open(const char *path, hum_checkpoint **out);
void hum_checkpoint_close(hum_checkpoint *ckpt);
hum_status hum_checkpoint_list_layers(hum_runtime *rt, const hum_checkpoint *ckpt, hum_layer_list *out);
void hum_layer_list_free(hum_layer_list *list);
hum_status hum_layer_load_standard(hum_runtime *rt, const char *checkpoint_path, const char *layer_name,
    hum_standard_weight *out);
hum_status hum_layer_load_shard(hum_runtime *rt, const char *checkpoint_path, const char *layer_name,
    const hum_shard *shard, hum_standard_weight *out);
hum_status hum_checkpoint_write_gptq(const char *dir, const char *const *layer_names,
    const hum_standard_weight *weights, int32_t count, const hum_checkpoint_write_options *opts);
hum_status hum_checkpoint_write_awq(const char *dir, const char *const *layer_names,
    const hum_standard_weight *weights, int32_t count, const hum_checkpoint_write_options *opts);
hum_status hum_layer_from_standard(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
    hum_layer **out);
hum_status hum_layer_from_safetensors(hum_runtime *rt, const char *path, const char *layer_name,
    const hum_layer_options *opts, hum_layer **out);
hum_status hum_layer_prepare(hum_layer *layer);
hum_status hum_layer_forward(hum_layer *layer, struct CUstream_st *stream, const hum_tensor *a,
    const hum_tensor *a_scale, const hum_tensor *c);
hum_status hum_layer_forward_ws(hum_layer *layer, hum_workspace *ws, struct CUstream_st *stream, const hum_tensor *a,
    const hum_tensor *a_scale, const hum_tensor *c);
hum_status hum_layer_workspace_size(const hum_layer *layer, int64_t max_m, int64_t *bytes);
hum_status hum_workspace_create(hum_runtime *rt, void *device_memory, int64_t bytes, hum_workspace **out);
void hum_workspace_destroy(hum_workspace *ws);
void hum_layer_destroy(hum_layer *layer);
hum_status hum_layer_get_info(const hum_layer *layer, hum_layer_info *out);
hum_status hum_layer_spec_parse(const char *spec, hum_layer_spec *out);
hum_status hum_layer_spec_format(const hum_layer_spec *spec, char *out, size_t cap);
hum_status hum_layer_spec_weight(const hum_layer_spec *spec, uint64_t seed, hum_standard_weight *out);

typedef struct hum_moe hum_moe;
typedef enum hum_moe_activation { HUM_MOE_SILU = 0, HUM_MOE_SWIGLU_OAI = 1, HUM_MOE_RELU2 = 2, HUM_MOE_GELU = 3 }
    hum_moe_activation;
typedef enum hum_moe_gate_up { HUM_MOE_GATE_UP_SPLIT = 0, HUM_MOE_GATE_UP_INTERLEAVED = 1 } hum_moe_gate_up;
typedef struct hum_moe_options { hum_dtype activation_dtype; int32_t activation; int32_t gate_up; int32_t top_k;
    int32_t global_experts; float alpha, beta, limit; const int32_t *experts; int64_t expert_count; } hum_moe_options;
typedef struct hum_moe_info { int64_t experts; int64_t global_experts; int64_t hidden; int64_t intermediate;
    int32_t top_k; int32_t activation; int32_t gate_up; hum_dtype activation_dtype; int32_t prepared;
    double prepare_ms; hum_layer_info gate_up_gemm, down_gemm; } hum_moe_info;
void hum_moe_options_init(hum_moe_options *opts);
hum_status hum_moe_from_standard(hum_runtime *rt, const hum_standard_weight *w13, const hum_standard_weight *w2,
    const hum_moe_options *opts, hum_moe **out);
hum_status hum_moe_from_safetensors(hum_runtime *rt, const char *path, const char *name, const hum_moe_options *opts,
    hum_moe **out);
hum_status hum_moe_prepare(hum_moe *moe);
hum_status hum_moe_workspace_size(const hum_moe *moe, int64_t max_m, int64_t *bytes);
hum_status hum_moe_forward(hum_moe *moe, hum_workspace *ws, struct CUstream_st *stream, const hum_tensor *hidden,
    const hum_tensor *topk_ids, const hum_tensor *topk_weights, const hum_tensor *expert_map,
    const hum_tensor *out, int32_t accumulate);
void hum_moe_destroy(hum_moe *moe);
hum_status hum_moe_get_info(const hum_moe *moe, hum_moe_info *out);
"""
