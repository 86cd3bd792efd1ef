-- The activation type a layer computes in, decided when it is planned (lua/hum/layer.lua):
-- LayerConfig a_dtype, a_scale and a_group (hum.h), filled by C with the request and rewritten
-- here with what runs.
--
-- The request, first that applies:
--   1. the host passes A already quantized (a_fixed: hum_layer_options.activation_dtype 8-bit):
--      it runs as it is, or the layer is refused;
--   2. the deployment override <linear|moe>.activation (docs/config.md): e4m3, int8, mxfp8,
--      nvfp4, mxfp4, float16, bfloat16 (e5m2 and int4 activations have no kernels: 16-bit);
--   3. the checkpoint's own scheme (hum_standard_weight.act_dtype, docs/formats.md), or the
--      SPEC's a=;
--   4. 16-bit activations in the output dtype (c_dtype), which the host passes.
-- Then the nearest type a kernel family takes on the target (C's rules: hum_layer_kernel_takes,
-- e.g. fp8 needs sm_89; every rule that refuses is named in the note): fp4 activations (NVFP4,
-- MXFP4 W4A4: no GPU of this build runs them) as e4m3 per token (W4A8), then 16-bit (W4A16);
-- mxfp8 as rounding (a_round): the layer rounds the host's 16-bit A (a MoE layer: the hidden
-- rows and the activation's output) to mxfp8's values in each forward and runs the 16-bit GEMM
-- of its output type on them, mxfp8's numerics with float32 accumulation wherever 16-bit A runs
-- (float16 from sm_75, bfloat16 from sm_80), then 16-bit (act-order, which the rounding does
-- not take). On the fp8 tensor cores mxfp8's scales multiply the accumulators every 32 of K on
-- the CUDA cores (no GPU before sm_100 has a block-scaled MMA), 6-10x the 16-bit layer's time
-- (bench/NOTES.md, session 37): there runs only the host's quantized A (a_fixed). 1 x 128 groups
-- (e4m3 with scales per group along K, applied where the accumulators are promoted: sm_89 and
-- newer, kernels/gemm/kscale.cuh) fall back as e4m3 per token, then 16-bit; e4m3 or int8 per
-- tensor or token as 16-bit. An 8-bit type with the layer's host passing 16-bit A: the layer
-- quantizes A in each forward (kernels/prep/quantize_a.cu; a MoE layer its hidden rows there
-- and the activation's output in kernels/moe/act.cu).

local bit = require("bit")
local ffi = require("ffi")
local hum = require("hum")
local policy = require("hum.policy")

local C = hum.C
local M = {}

local SCALES = { [0] = "token", "tensor", "group" }
local SCALE_CODES = { token = 0, tensor = 1, group = 2 }

local function name_of(code) return ffi.string(C.hum_dtype_name(code)) end

local function dt(name) return tonumber(C["HUM_DTYPE_" .. name]) end

local function is_mxfp8(r)
  return r.dtype == dt("FLOAT8_E4M3FN") and r.scale == "group" and r.group == 32
end

-- "e4m3 per token", "mxfp8", "nvfp4", "bfloat16", ...
function M.describe(a)
  if a.round then return "mxfp8" end
  local code = a.dtype
  if code == dt("FLOAT4_E2M1") then return a.group == 16 and "nvfp4" or "mxfp4" end
  if is_mxfp8(a) then return "mxfp8" end
  if bit.band(code, 0xff) ~= 8 then return name_of(code) end
  local short = code == dt("FLOAT8_E4M3FN") and "e4m3" or name_of(code)
  if a.scale == "group" then return string.format("%s per 1x%d group", short, a.group) end
  return short .. " per " .. a.scale
end

local function request_of(c)
  return { dtype = tonumber(c.a_dtype), scale = SCALES[tonumber(c.a_scale)] or "token", group = tonumber(c.a_group),
           round = tonumber(c.a_round) ~= 0 or nil }
end

-- What a rounding layer's note says of it (a: its request, round set).
local function rounding_note(a)
  return "rounded by the layer, computed in " .. name_of(a.dtype) .. ": no block-scaled MMA before sm_100"
end

-- The override as a request (nil: none), given the checkpoint's request (whose scale mode an
-- override of the same 8-bit type keeps: a static input_scale was calibrated for that type).
local function from_override(value, ckpt, c16)
  local e4m3, int8 = dt("FLOAT8_E4M3FN"), dt("INT8")
  if value == "e4m3" or value == "int8" then
    local code = value == "e4m3" and e4m3 or int8
    if ckpt.dtype == code and not (ckpt.scale == "group" and ckpt.group == 32) then return ckpt end
    return { dtype = code, scale = "token", group = 0 }
  end
  if value == "mxfp8" then return { dtype = e4m3, scale = "group", group = 32 } end
  if value == "nvfp4" or value == "mxfp4" then
    return { dtype = dt("FLOAT4_E2M1"), scale = "group", group = value == "nvfp4" and 16 or 32 }
  end
  -- float16 / bfloat16 run as the 16-bit type the host passes; e5m2 and int4 have no kernels
  return { dtype = c16, scale = "token", group = 0, wanted = value }
end

-- The requests to try, nearest first, ending with 16-bit.
local function candidates(r, c16)
  if is_mxfp8(r) then
    -- the rounding needs no 8-bit MMA, so no e4m3 per token between it and 16-bit
    return { { dtype = c16, scale = "token", group = 0, round = true }, { dtype = c16, scale = "token", group = 0 } }
  end
  local list, e4m3 = { r }, dt("FLOAT8_E4M3FN")
  local token = { dtype = r.dtype == dt("FLOAT4_E2M1") and e4m3 or r.dtype, scale = "token", group = 0 }
  if bit.band(r.dtype, 0xff) <= 8 and not (r.scale == "token" and r.dtype == token.dtype) then
    list[#list + 1] = token
  end
  if r.dtype ~= c16 then list[#list + 1] = { dtype = c16, scale = "token", group = 0 } end
  return list
end

local function set(c, a)
  c.a_dtype, c.a_scale, c.a_group, c.a_round = a.dtype, SCALE_CODES[a.scale], a.group, a.round and 1 or 0
end

-- Decides c's activation fields for the plan's target. try() checks the candidate set in c:
-- true, or false and why (the rule that refuses it). Returns the note hum info prints ("e4m3
-- per token (the checkpoint's; quantized by the layer)", "bfloat16 (fallback from nvfp4: ...)"),
-- or nil when not even 16-bit activations run: c then holds those, whose check names the error.
function M.decide(c, try)
  if c.a_fixed ~= 0 then
    local a = request_of(c)
    return a.round and (M.describe(a) .. " (" .. rounding_note(a) .. ")") or M.describe(a)
  end
  local c16 = tonumber(c.c_dtype)
  local ckpt = request_of(c)
  local section = tonumber(c.num_experts) > 0 and "moe" or "linear"
  local key = section .. ".activation"
  local value = policy.override(key)
  local want, source = ckpt, ckpt.dtype == c16 and "" or "the checkpoint's"
  if value ~= nil then want, source = from_override(value, ckpt, c16), "override " .. key .. " = " .. value end
  local why = {}
  -- "fallback from <what was asked>[, <where it came from>]: <the rules that refused it>"
  local function fallback(reasons)
    return "fallback from " .. (want.wanted or M.describe(want)) .. (source ~= "" and (", " .. source) or "") .. ": "
      .. reasons
  end
  for i, a in ipairs(candidates(want, c16)) do
    set(c, a)
    local ok, reason = try()
    if ok then
      local text = M.describe(a)
      if a.wanted and a.wanted ~= text then
        -- a 16-bit override names no quantization: A stays the 16-bit type the host passes
        local sixteen = a.wanted == "float16" or a.wanted == "bfloat16"
        why[#why + 1] = sixteen and ("16-bit activations run as the host passes them, " .. text)
          or (a.wanted .. " activations have no kernels")
      end
      local notes = {}
      if i > 1 or #why > 0 then
        notes[#notes + 1] = fallback(table.concat(why, "; "))
      elseif source ~= "" then
        notes[#notes + 1] = source
      end
      if a.round then
        notes[#notes + 1] = rounding_note(a)
      elseif bit.band(a.dtype, 0xff) <= 8 then
        notes[#notes + 1] = "quantized by the layer"
      end
      return #notes > 0 and (text .. " (" .. table.concat(notes, "; ") .. ")") or text
    end
    -- a reason already given (the same rule refusing the next candidate) is said once
    if reason ~= why[#why] then why[#why + 1] = reason end
  end
  -- what was asked for and why it fell back, for the 16-bit error that follows (an 8-bit layer's
  -- fallback is 16-bit A in its output dtype: "bfloat16 activations need sm_80" alone does not
  -- say the e4m3 layer came there)
  if M.describe(want) ~= M.describe(request_of(c)) or source ~= "" then
    return nil, fallback(table.concat(why, "; ", 1, #why > 1 and #why - 1 or #why))
  end
  return nil
end

return M
