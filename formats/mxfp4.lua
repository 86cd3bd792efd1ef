-- MXFP4 as gpt-oss stores it (HF layout, quant_method "mxfp4") -> standard format.
-- checkpoint-formats.md section 6.2 (openai/gpt-oss gpt_oss/torch/weights.py; transformers
-- integrations/mxfp4.py).
--
-- Only the MoE experts are MXFP4. Under model.layers.L.mlp.experts.:
--   <proj>_blocks U8 [E, N, K/32, 16]: 32 FP4 e2m1 codes per block, two per byte, the even K
--                 index in the low nibble (k = 32*block + 2*byte + nibble);
--   <proj>_scales U8 [E, N, K/32]: E8M0 exponents, scale = 2^(u - 127);
--   <proj>_bias   BF16 [E, N].
-- with <proj> gate_up_proj (N = 2 * intermediate, K = hidden) and down_proj (N = hidden,
-- K = intermediate). The layer is named model.layers.L.mlp.experts.<proj>. Rows keep the
-- checkpoint order: in gate_up_proj row 2j is gate unit j and row 2j+1 up unit j (interleaved,
-- not two halves); the MoE activation must pair them that way.

local hum = require("hum")
local cv = require("hum.convert")

local C = hum.C
local M = {}

local BLOCKS = "U8"

-- _blocks without _scales is listed, for plan to say so.
function M.names(ck) return ck:layers("_blocks", "_scales", { BLOCKS }) end

local function plan(ck, layer)
  local blocks = ck:expect(ck:tensor(layer .. "_blocks"), BLOCKS, false)
  local r = #blocks.shape
  if (r ~= 4 and r ~= 3) or blocks.shape[r] ~= 16 then
    ck:fail(blocks.name .. " must be [E, N, K/32, 16] (or [N, K/32, 16])")
  end
  local p = { blocks = blocks, experts = ck:experts(blocks, 3), n = blocks.shape[r - 2],
    k = 32 * blocks.shape[r - 1] }
  local lead = p.experts > 0 and { p.experts } or {}
  local function with_lead(...)
    local s = { unpack(lead) }
    for _, d in ipairs({ ... }) do s[#s + 1] = d end
    return s
  end
  p.scales = ck:expect(ck:companion(blocks, layer, "_scales", "its E8M0 scales"), "U8", with_lead(p.n, p.k / 32))
  p.bias = ck:optional(layer .. "_bias")
  if p.bias then ck:expect(p.bias, { "BF16", "F16", "F32" }, with_lead(p.n)) end
  return p
end

function M.describe(ck, _, layer)
  local p = plan(ck, layer)
  return { name = layer, format = "mxfp4", weight_dtype = cv.dtype("float4_e2m1"), bits = 4, scale = "group",
    group_size = 32, symmetric = true, act_order = false, n = p.n, k = p.k, experts = p.experts }
end

local bias_dtypes = { BF16 = "bfloat16", F16 = "float16", F32 = "float32" }

local function convert(scope, p, out, keep)
  if keep and p.experts > 0 then -- expert parallelism: only the kept experts' slices are read
    local ids = keep(p.experts)
    p.blocks, p.scales = scope:take_experts(p.blocks, ids), scope:take_experts(p.scales, ids)
    if p.bias then p.bias = scope:take_experts(p.bias, ids) end
    p.experts = #ids + 1
  end
  cv.begin(out, { n = p.n, k = p.k, experts = p.experts, weight_dtype = cv.dtype("float4_e2m1"),
    param_dtype = cv.dtype("bfloat16") })
  -- Each row's K/32 blocks of 16 bytes are already the LSB-first e2m1 stream along K.
  cv.set_weight_bytes(out, p.blocks.data, p.k / 2, 4)
  cv.set_scale(out, C.HUM_SCALE_GROUP, C.HUM_DTYPE_FLOAT8_E8M0, p.scales.data, p.n, p.k / 32, 32)
  if p.bias then cv.set_bias(out, scope, p.bias.data, cv.dtype(bias_dtypes[p.bias.dtype_name])) end
end

function M.load(ck, _, layer, out, keep)
  local p = plan(ck, layer)
  cv.run(convert, p, out, keep)
  return keep ~= nil and p.experts > 0
end

return M
