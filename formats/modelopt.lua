-- NVIDIA TensorRT Model Optimizer (ModelOpt) unified HF export -> standard format.
-- checkpoint-formats.md section 4.
--
-- hf_quant_config.json {"quantization": {"quant_algo", "group_size", "exclude_modules",
-- "quantized_layers" (MIXED_PRECISION)}}; quant_algo compared case-insensitively (some algos
-- are written in lower case). Per layer:
--   FP8                        weight F8_E4M3 [N, K], weight_scale F32 [] (dequant multiplier)
--   FP8_PER_CHANNEL_PER_TOKEN  weight_scale F32 [N]
--   NVFP4                      weight U8 [N, K/2] (even K index in the low nibble), weight_scale
--                              F8_E4M3 [N, K/16], weight_scale_2 F32 []: w = e2m1 * s * s2, the
--                              global s2 used directly (unlike compressed-tensors' reciprocal)
--   MXFP8                      weight F8_E4M3 [N, K], weight_scale U8 [N, K/32] (E8M0)
-- Activations (checkpoint-formats.md 4.2, 4.3): FP8 quantizes them statically per tensor with
-- input_scale F32 [] (amax / 448, a dequant multiplier); FP8_PER_CHANNEL_PER_TOKEN dynamically
-- per token; MXFP8 as MXFP8 (e8m0 per 32); NVFP4 to e2m1 per 16 (input_scale is its global,
-- dropped here: no GPU of this build runs fp4 activations, lua/hum/layer.lua falls back).
-- The AWQ variants (W4A16_AWQ, W4A8_AWQ, NVFP4_AWQ) carry pre_quant_scale, a per-channel
-- multiplier of the activations the standard weight cannot express: refused by name. So are
-- the 3-D "BMM-style" expert tensors (Llama4 / gpt-oss experts), whose export transposes the
-- last two dims in a way not settled here (checkpoint-formats.md 4.3 marks it unverified).

local hum = require("hum")
local cv = require("hum.convert")

local C = hum.C
local M = {}

local function algo_for(ck, q, layer)
  local algo, gs = q.quant_algo, q.group_size
  if type(algo) == "string" and algo:upper() == "MIXED_PRECISION" then
    local entry = type(q.quantized_layers) == "table" and q.quantized_layers[layer]
    if type(entry) ~= "table" then ck:fail("MIXED_PRECISION hf_quant_config.json lists no quant_algo for " .. layer) end
    algo, gs = entry.quant_algo, entry.group_size or gs
  end
  if type(algo) ~= "string" then ck:fail("hf_quant_config.json has no quant_algo for " .. layer) end
  return algo:upper(), gs
end

local FP8_WEIGHT, FP4_WEIGHT = "F8_E4M3", "U8"

-- An FP8 / MXFP8 or NVFP4 weight without its scales is listed, for plan to say so.
function M.names(ck) return ck:layers(".weight", ".weight_scale", { FP8_WEIGHT, FP4_WEIGHT }) end

local function plan(ck, q, layer)
  local algo, gs = algo_for(ck, q, layer)
  if algo:find("AWQ") then
    hum.fail("HUM_ERR_UNSUPPORTED", string.format("%s: layer %s: ModelOpt %s scales activations by " ..
      "pre_quant_scale, which the standard weight cannot carry", ck.path, layer, algo), 0)
  end
  local w = ck:tensor(layer .. ".weight")
  if #w.shape ~= 2 then
    hum.fail("HUM_ERR_UNSUPPORTED", string.format("%s: %s is %d-D: ModelOpt BMM-style expert tensors are not " ..
      "converted", ck.path, w.name, #w.shape), 0)
  end
  local p = { algo = algo, weight = w, scale = ck:companion(w, layer, ".weight_scale", "its scales"), n = w.shape[1] }
  if algo == "FP8" or algo == "FP8_PER_CHANNEL_PER_TOKEN" or algo == "MXFP8" then
    ck:expect(w, FP8_WEIGHT, false)
    p.k, p.bits = w.shape[2], 8
    if algo == "FP8" then
      ck:expect(p.scale, "F32", false)
      p.global = ck:global_scales(p.scale, false, 1, "must be a scalar for FP8")
    elseif algo == "MXFP8" then
      ck:expect(p.scale, "U8", { p.n, math.ceil(p.k / 32) })
    else
      ck:expect(p.scale, "F32", #p.scale.shape == 2 and { p.n, 1 } or { p.n })
    end
  elseif algo == "NVFP4" then
    ck:expect(w, FP4_WEIGHT, false)
    p.k, p.bits = 2 * w.shape[2], 4
    p.group_size = ck:size(gs or 16, "hf_quant_config.json group_size of " .. layer)
    ck:expect(p.scale, "F8_E4M3", { p.n, math.ceil(p.k / p.group_size) })
    local scale_2 = ck:expect(ck:tensor(layer .. ".weight_scale_2"), "F32", false)
    p.global = ck:global_scales(scale_2, false, 1, "must be a scalar")
  else
    hum.fail("HUM_ERR_UNSUPPORTED", string.format("%s: layer %s: ModelOpt quant_algo %s is not converted " ..
      "(supported: FP8, FP8_PER_CHANNEL_PER_TOKEN, NVFP4, MXFP8)", ck.path, layer, algo), 0)
  end
  if algo == "FP8" then
    local t = ck:expect(ck:companion(w, layer, ".input_scale", "the static activation scale of quant_algo FP8"),
      "F32", false)
    local v = ck:small_floats(t)
    if #v ~= 1 or not (v[1] > 0 and v[1] < math.huge) then ck:fail(t.name .. " must be one positive scale") end
    p.act = { dtype = "float8_e4m3fn", scale = "tensor", input_scale = v }
  elseif algo == "FP8_PER_CHANNEL_PER_TOKEN" then
    p.act = { dtype = "float8_e4m3fn", scale = "token" }
  elseif algo == "MXFP8" then
    p.act = { dtype = "float8_e4m3fn", scale = "group", group = 32 }
  else
    p.act = { dtype = "float4_e2m1", scale = "group", group = 16 }
  end
  return p
end

local scales = { FP8 = "tensor", FP8_PER_CHANNEL_PER_TOKEN = "channel", NVFP4 = "group+tensor", MXFP8 = "group" }

function M.describe(ck, q, layer)
  local p = plan(ck, q, layer)
  return { name = layer, format = "modelopt/" .. p.algo,
    weight_dtype = cv.dtype(p.bits == 4 and "float4_e2m1" or "float8_e4m3fn"), bits = p.bits,
    scale = scales[p.algo], group_size = p.algo == "NVFP4" and p.group_size or (p.algo == "MXFP8" and 32 or 0),
    symmetric = true, act_order = false, n = p.n, k = p.k, activations = cv.activation_text(p.act) }
end

local function param_dtype(ck)
  local cfg = ck:config("config.json")
  local td = cfg and (cfg.torch_dtype or cfg.dtype)
  return cv.dtype((td == "float16") and "float16" or "bfloat16")
end

local function convert(scope, ck, p, out)
  cv.begin(out, { n = p.n, k = p.k, weight_dtype = cv.dtype(p.bits == 4 and "float4_e2m1" or "float8_e4m3fn"),
    param_dtype = param_dtype(ck) })
  cv.set_weight_bytes(out, p.weight.data, p.weight.shape[2], p.bits)
  if p.algo == "FP8" then
    out.scale_type = C.HUM_SCALE_TENSOR
    out.scale_dtype = C.HUM_DTYPE_FLOAT32
    cv.set_global(out, p.global)
  elseif p.algo == "FP8_PER_CHANNEL_PER_TOKEN" then
    cv.set_scale(out, C.HUM_SCALE_CHANNEL, C.HUM_DTYPE_FLOAT32, p.scale.data, p.n, 1)
  elseif p.algo == "MXFP8" then
    cv.set_scale(out, C.HUM_SCALE_GROUP, C.HUM_DTYPE_FLOAT8_E8M0, p.scale.data, p.n, math.ceil(p.k / 32), 32)
  else
    local g = math.ceil(p.k / p.group_size)
    cv.set_scale(out, C.HUM_SCALE_GROUP_TENSOR, C.HUM_DTYPE_FLOAT8_E4M3FN, p.scale.data, p.n, g, p.group_size)
    cv.set_global(out, p.global)
  end
  cv.set_activation(out, p.act)
end

function M.load(ck, q, layer, out)
  cv.run(convert, ck, plan(ck, q, layer), out)
end

return M
