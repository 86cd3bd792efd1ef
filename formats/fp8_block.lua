-- FP8 checkpoints with quant_method "fp8" (DeepSeek-V3 and the models that copied its schema)
-- -> standard format. checkpoint-formats.md section 5.
--
-- quantization_config: fmt "e4m3", activation_scheme, weight_block_size [bn, bk] (128x128).
-- Per layer: weight F8_E4M3 [N, K] and weight_scale_inv [ceil(N/bn), ceil(K/bk)], a dequant
-- MULTIPLIER despite its name (DeepSeek-V3 inference/kernel.py weight_dequant:
-- w = fp8 * scale_inv[n/bn][k/bk]), stored F32, or F8_E8M0 in "DeepSeek V4-style" checkpoints
-- (converted exactly to float32 here). The block size comes from weight_block_size, never from
-- the shapes (K = 1000 would give 125). Without weight_block_size: per-tensor weight_scale.
-- Activations (checkpoint-formats.md 5.2; DeepSeek-V3 inference/kernel.py act_quant): with
-- activation_scheme "dynamic" and blocks, e4m3 per token and group of block[2] (128) columns,
-- float32 scales; without blocks, "dynamic" is per token and "static" per tensor with the
-- layer's input_scale F32 (a dequant multiplier). A block width other than 128, or another
-- scheme, runs with 16-bit activations.

local hum = require("hum")
local cv = require("hum.convert")
local fields = require("hum.fields")

local C = hum.C
local M = {}

local function block_size(ck, qc)
  local b = qc.weight_block_size
  if b == nil then return nil end
  if type(b) ~= "table" or #b ~= 2 then
    ck:fail("quantization_config.weight_block_size is " .. (type(b) == "table" and "a list of " .. #b .. " values"
      or fields.show(b)) .. ", expected [rows, cols]")
  end
  ck:size(b[1], "quantization_config.weight_block_size[1]")
  ck:size(b[2], "quantization_config.weight_block_size[2]")
  return b
end

-- The scale tensor beside each weight: block scales, or one per-tensor scale without blocks.
local function scale_suffix(block)
  return block and ".weight_scale_inv" or ".weight_scale"
end

local WEIGHT = "F8_E4M3"

-- An F8_E4M3 weight without its scale is listed, for plan to say which tensor is missing.
function M.names(ck, qc)
  return ck:layers(".weight", scale_suffix(block_size(ck, qc)), { WEIGHT })
end

local function plan(ck, qc, layer)
  if qc.fmt ~= nil and qc.fmt ~= "e4m3" then
    hum.fail("HUM_ERR_UNSUPPORTED",
      ck.path .. ": fp8 fmt \"" .. tostring(qc.fmt) .. "\" is not converted (only e4m3)", 0)
  end
  local w = ck:expect(ck:tensor(layer .. ".weight"), WEIGHT, { false, false })
  local p = { weight = w, n = w.shape[1], k = w.shape[2], block = block_size(ck, qc) }
  local scale = ck:companion(w, layer, scale_suffix(p.block), p.block and "its block scales" or "its scale")
  if p.block then
    p.scale = ck:expect(scale, { "F32", "BF16", "F8_E8M0" },
      { math.ceil(p.n / p.block[1]), math.ceil(p.k / p.block[2]) })
  else
    p.scale = ck:expect(scale, { "F32", "BF16" }, false)
    p.global = ck:global_scales(p.scale, false, 1, "must be one per-tensor scale")
  end
  local scheme = qc.activation_scheme
  if scheme == "dynamic" then
    if not p.block then
      p.act = { dtype = "float8_e4m3fn", scale = "token" }
    elseif p.block[2] == 128 then
      p.act = { dtype = "float8_e4m3fn", scale = "group", group = 128 }
    end
  elseif scheme == "static" and not p.block then
    local t = ck:expect(ck:companion(w, layer, ".input_scale", "the static activation scale that " ..
      "activation_scheme \"static\" asks for"), { "F32", "BF16" }, false)
    local v = ck:small_floats(t)
    if #v ~= 1 or not (v[1] > 0 and v[1] < math.huge) then ck:fail(t.name .. " must be one positive scale") end
    p.act = { dtype = "float8_e4m3fn", scale = "tensor", input_scale = v }
  end
  return p
end

function M.describe(ck, qc, layer)
  local p = plan(ck, qc, layer)
  return { name = layer, format = "fp8", weight_dtype = cv.dtype("float8_e4m3fn"), bits = 8,
    scale = p.block and string.format("block %dx%d", p.block[1], p.block[2]) or "tensor",
    group_size = p.block and p.block[2] or 0, symmetric = true, act_order = false, n = p.n, k = p.k,
    activations = cv.activation_text(p.act) }
end

local function convert(scope, ck, p, out)
  local cfg = ck:config("config.json")
  local td = cfg and (cfg.torch_dtype or cfg.dtype)
  cv.begin(out, { n = p.n, k = p.k, weight_dtype = cv.dtype("float8_e4m3fn"),
    param_dtype = cv.dtype(td == "float16" and "float16" or "bfloat16") })
  cv.set_weight_bytes(out, p.weight.data, p.k, 8)
  cv.set_activation(out, p.act)
  if not p.block then
    out.scale_type = C.HUM_SCALE_TENSOR
    out.scale_dtype = C.HUM_DTYPE_FLOAT32
    cv.set_global(out, p.global)
    return
  end
  local rows, cols = p.scale.shape[1], p.scale.shape[2]
  local f = scope:buffer("float", rows * cols)
  hum.check(C.hum_dtype_to_float(p.scale.dtype, scope:copy(p.scale.data, p.scale.nbytes), rows * cols, f),
    "reading " .. p.scale.name)
  cv.set_scale(out, C.HUM_SCALE_BLOCK, C.HUM_DTYPE_FLOAT32, f, rows, cols, p.block[2], p.block[1])
end

function M.load(ck, qc, layer, out)
  cv.run(convert, ck, plan(ck, qc, layer), out)
end

return M
