-- Layer preparation decisions (hum_layer_prepare and hum_layer_compile call plan()): the
-- LayerConfig of a standard weight, checked against what the dense GEMM kernel supports (a
-- combination it does not is an HUM_ERR_UNSUPPORTED naming it), then the policy's M ranges and
-- tunings, written into the plan for C to fit and check.

local bit = require("bit")
local ffi = require("ffi")
local hum = require("hum")
local policy = require("hum.policy")
local fields = require("hum.fields")
local dispatch = require("hum.dispatch")
local activation = require("hum.activation")

local layer = {}

-- hum_dtype layout (hum.h): bits 0..7 width, 8..15 exponent bits, 16..23 mantissa bits,
-- 24..27 kind, 28..31 special values.
local KIND_UINT, KIND_FLOAT = 1, 3

local function dtype(code)
  code = tonumber(code)
  return {
    code = code,
    bits = bit.band(code, 0xff),
    exp = bit.band(bit.rshift(code, 8), 0xff),
    man = bit.band(bit.rshift(code, 16), 0xff),
    kind = bit.band(bit.rshift(code, 24), 0xf),
    name = ffi.string(hum.C.hum_dtype_name(code)),
  }
end

local function unsupported(fmt, ...)
  hum.fail("HUM_ERR_UNSUPPORTED", "layer: " .. string.format(fmt, ...), 0)
end

local SCALE_TYPES = { [0] = "channel", "group", "block", "tensor", "group_tensor" }
local ZERO_POINTS = { [0] = "none", "int", "float" }

local function is_scale_dtype(code)
  local C = hum.C
  for _, name in ipairs({ "HUM_DTYPE_FLOAT16", "HUM_DTYPE_BFLOAT16", "HUM_DTYPE_FLOAT32",
                          "HUM_DTYPE_FLOAT8_E4M3FN", "HUM_DTYPE_FLOAT8_E5M2", "HUM_DTYPE_FLOAT8_E8M0" }) do
    if code == tonumber(C[name]) then return true end
  end
  return false
end

local function round_up(x, m) return math.ceil(x / m) * m end

-- Checks the input fields of a hum_layer_config (cdata) for target `sm` and GEMM type
-- `gemm_type` (hum_gemm_type: 0 dense, else an expert GEMM of a MoE layer), fills its derived
-- fields, and returns the LayerConfig table the policies see (hum.fields.to_table).
function layer.config(c, sm, gemm_type)
  local n, k = tonumber(c.n), tonumber(c.k)
  if (gemm_type or 0) == 0 and tonumber(c.num_experts) > 0 then
    unsupported("%d experts: MoE weights are not dense layers", tonumber(c.num_experts))
  end
  local act = dtype(c.a_dtype)
  -- 8-bit A (float8_e4m3fn, int8: C's rule, hum_layer_a8) comes quantized with its scales; which
  -- weights, scales and targets it runs with is C's rule too (hum_layer_kernel_takes), 16-bit A's
  -- is below.
  local a8 = hum.C.hum_layer_a8(c) ~= 0
  if not a8 and act.code ~= tonumber(hum.C.HUM_DTYPE_FLOAT16) and act.code ~= tonumber(hum.C.HUM_DTYPE_BFLOAT16) then
    unsupported("%s activations (expected float16, bfloat16, float8_e4m3fn or int8)", act.name)
  end
  -- (which type that is, the deployment override and the checkpoint's scheme included, was
  -- decided before: lua/hum/activation.lua)
  if not a8 and c.c_dtype ~= c.a_dtype then
    unsupported("%s output with %s activations: the kernels write C in the activation dtype", dtype(c.c_dtype).name,
      act.name)
  end
  -- 8-bit A needs sm_80 or newer whatever C's dtype (C's rule names the instruction it lacks).
  if not a8 and act.name == "bfloat16" and sm < 80 then
    unsupported("bfloat16 activations need sm_80 or newer (the target is sm_%d)", sm)
  end
  local w = dtype(c.weight_dtype)
  local weight_float
  if w.kind == KIND_UINT and w.bits >= 1 and w.bits <= 8 then
    weight_float = false
  elseif w.kind == KIND_FLOAT and w.bits <= 8 and w.exp >= 1 then
    if not a8 and (w.exp > act.exp or w.man > act.man) then
      unsupported("%s weights with %s activations: the weight's %d exponent and %d mantissa bits must fit the "
        .. "activation's %d and %d", w.name, act.name, w.exp, w.man, act.exp, act.man)
    end
    weight_float = true
  else
    unsupported("%s weights (expected uint1..uint8 or a float of at most 8 bits)", w.name)
  end
  local zero_point = ZERO_POINTS[tonumber(c.zero_point)]
  if weight_float and zero_point ~= "none" then
    unsupported("a %s zero point with %s weights", zero_point, w.name)
  end

  local padded_n, padded_k = round_up(n, 64), round_up(k, 128)
  local scale_type = SCALE_TYPES[tonumber(c.scale_type)]
  local group = tonumber(c.group_size)
  local kernel_group, scale_rows, has_scale = padded_k, 1, 1
  if scale_type == "tensor" then
    scale_rows, has_scale = 0, 0
  elseif scale_type ~= "channel" and group < k then
    if not (group == 16 or group == 32 or group % 64 == 0) then
      unsupported("%s scales with group size %d (K = %d): expected 16, 32, a multiple of 64, or at least K",
        scale_type, group, k)
    end
    kernel_group, scale_rows = group, math.ceil(padded_k / group)
  end
  local scale = dtype(c.scale_dtype)
  if has_scale == 1 and not is_scale_dtype(scale.code) then
    unsupported("%s scales (expected float16, bfloat16, float32, e4m3, e5m2 or e8m0)", scale.name)
  end

  -- (8-bit A multiplies the weight codes as they are: no decoding, no compensation)
  local compensation = 0
  if weight_float and not a8 then
    compensation = (2 ^ (act.exp - 1) - 1) - (2 ^ (w.exp - 1) - 1)
  end

  c.padded_n, c.padded_k = padded_n, padded_k
  c.kernel_group, c.scale_rows, c.has_scale = kernel_group, scale_rows, has_scale
  c.weight_float = weight_float and 1 or 0
  c.weight_bits = w.bits
  c.weight_exp = weight_float and w.exp or 0
  c.exp_compensation = compensation
  c.has_zero_point = zero_point ~= "none" and 1 or 0

  local t = fields.to_table("layer", c)
  -- for policies: whether A runs as 8-bit codes (the rule above, not a hum_layer_config field)
  t.a8 = a8
  -- for policies: the period along K of the scales applied where 8-bit A's accumulators are
  -- promoted (0: none; C's rule, hum_layer_kgroup_k)
  t.kgroup_k = tonumber(hum.C.hum_layer_kgroup_k(c))
  return t
end

-- The device table the policies see for a plan: its GPU, or the nominal device of its arch.
function layer.target(plan)
  if plan.sm > 0 then
    return {
      name = ffi.string(plan.device_name), sm = plan.sm, sm_count = plan.sm_count,
      smem_per_block = tonumber(plan.smem_per_block), l2_bytes = tonumber(plan.l2_bytes), ordinal = 0,
    }
  end
  return policy.nominal_device(ffi.string(plan.arch))
end

-- The kernel families that run the layer on the plan's arch, by their policy names
-- ({ mma = true, wgmma = false }): C's rules decide (hum_layer_kernel_takes).
local function kernels(plan)
  local out = {}
  for _, f in ipairs(fields.list("tuning")) do
    if f.name == "kernel" then
      for code, name in ipairs(f.names) do
        out[name] = hum.C.hum_layer_kernel_takes(plan.config, plan.compute, code - 1, plan.arch) == 0
      end
    end
  end
  return out
end

-- What the policies see for a plan (inputs and target filled): the device table, the
-- LayerConfig table (derived fields filled in the plan too) with `kernels`, the families that run
-- the layer on the plan's arch, and the ComputeConfig table.
function layer.inputs(plan)
  local device = layer.target(plan)
  -- the activation type first: a candidate runs when its config checks and a family takes it
  local note, fallback = activation.decide(plan.config, function()
    local ok, err = pcall(layer.config, plan.config, device.sm, tonumber(plan.compute.gemm_type))
    if not ok then return false, hum.message(err) end
    -- the first family's rule names the reason (the others' are "runs on sm_90a only" and such)
    local why
    for _, f in ipairs(fields.list("tuning")) do
      if f.name == "kernel" then
        for code = 1, #f.names do
          if hum.C.hum_layer_kernel_takes(plan.config, plan.compute, code - 1, plan.arch) == 0 then return true end
          why = why or ffi.string(hum.C.hum_last_error())
        end
      end
    end
    return false, why
  end)
  if note then hum.put(plan.activation, note) end
  local ok, cfg = pcall(layer.config, plan.config, device.sm, tonumber(plan.compute.gemm_type))
  if not ok then
    -- no type ran: the 16-bit one's error, with where the layer's own type fell back from
    if not note and fallback and hum.is_error(cfg) then
      hum.fail(cfg.status, cfg.message .. " (" .. fallback .. ")", 0)
    end
    error(cfg, 0)
  end
  cfg.kernels = kernels(plan)
  -- an expert GEMM's facts of its MoE layer, unless C gave both GEMMs' (runtime/src/moe/
  -- moe_prepare.c): its own, kept in the plan for reloads
  local c = plan.compute
  if tonumber(c.gemm_type) ~= 0 and tonumber(c.moe_weight_bits) == 0 then
    c.moe_wgmma = cfg.kernels.wgmma and 1 or 0
    c.moe_a8 = cfg.a8 and 1 or 0
    c.moe_weight_bits, c.moe_kernel_group, c.moe_kscale_k = cfg.weight_bits, cfg.kernel_group, cfg.kgroup_k
  end
  return device, cfg, fields.to_table("compute", c)
end

-- Only the plan's target (layer.target): raises where it has none (an arch without a nominal
-- device), which a MoE layer checks once before either GEMM (runtime/src/moe/moe_prepare.c).
function layer.check_target(rt, plan)
  layer.target(plan)
end

-- The LayerConfig of a plan derived and its activation type decided, without the policy: what
-- a MoE layer reads of each GEMM before planning both (runtime/src/moe/moe_prepare.c).
function layer.derive(rt, plan)
  layer.inputs(plan)
end

-- Fills a hum_layer_plan: derived config fields, the target's shared memory, the policy's M
-- ranges and tunings as it wrote them, with the policy line of each. C then fits the tunings to
-- the layer and checks them, once (runtime/src/layer/layer_plan.c, hum_layer_fit_plan).
function layer.plan(rt, plan)
  local device, cfg, compute = layer.inputs(plan)
  plan.smem_per_block = device.smem_per_block
  if plan.sm == 0 then hum.put(plan.device_name, device.name) end
  local list, p = policy.tunings(device, cfg, compute)
  dispatch.store(list, plan, p)
end

return layer
