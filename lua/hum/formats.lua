-- Which format a checkpoint is in, from its config files, and the two entry points C calls
-- (runtime/src/layer/layer_load.c): list(rt, call) and load(rt, call), both given a hum_format_call,
-- and names(rt, call) for hum_runtime_formats.
--
-- Detection (checkpoint-formats.md sections 1.6, 2.4, 3.1, 4.1, 5.1, 6.2, 7, 10):
--   hf_quant_config.json present                  -> ModelOpt (config.json may repeat it as
--                                                    quant_method "modelopt")
--   config.json quantization_config.quant_method  -> gptq, awq, compressed-tensors, modelopt,
--                                                    fp8, mxfp4, bitnet
--   else quantize_config.json / quant_config.json -> AutoGPTQ (bits) or AutoAWQ (w_bit)
-- When two files describe the same checkpoint, any key they share must agree.
--
-- Per-expert modules are listed and loadable as one MoE layer (lua/hum/experts.lua); a load
-- with a shard that lists experts converts only those modules (hum_layer_load_shard), and only
-- those experts of fused 3-D expert tensors.
-- Each formats/<name>.lua returns { names = f(ck, cfg) -> sorted layer names,
-- describe = f(ck, cfg, name) -> summary table, load = f(ck, cfg, name, out, keep) }; `keep`
-- (nil, or an expert_select from lua/hum/experts.lua) selects the experts of a fused layer, and
-- load returns true when it kept only those. describe applies every rule of load that the config
-- and tensor headers decide (both through the format's plan): load may refuse a layer describe
-- accepted only on the values inside its tensors, which describe does not read (docs/cli.md).

local ffi = require("ffi")
local hum = require("hum")
local checkpoint = require("hum.checkpoint")
local cv = require("hum.convert")
local experts = require("hum.experts")
local fields = require("hum.fields")

local C = hum.C
local M = {}

local modules = {
  gptq = "formats.gptq",
  awq = "formats.awq",
  ["compressed-tensors"] = "formats.compressed_tensors",
  modelopt = "formats.modelopt",
  fp8 = "formats.fp8_block",
  mxfp4 = "formats.mxfp4",
  bitnet = "formats.bitnet",
}

local function known()
  local k = {}
  for name in pairs(modules) do k[#k + 1] = name end
  table.sort(k)
  return table.concat(k, ", ")
end

local function lower(v) return type(v) == "string" and v:lower() or v end

-- Keys both files set must agree (AutoGPTQ writes quantize_config.json beside config.json; AutoAWQ
-- writes quant_config.json with w_bit / q_group_size spellings).
local aliases = { w_bit = "bits", q_group_size = "group_size" }
local function agree(ck, qc, other, other_name)
  for key, value in pairs(other) do
    local k = aliases[key] or key
    local mine = qc[k]
    if type(value) ~= "table" and mine ~= nil and type(mine) ~= "table" and lower(mine) ~= lower(value) then
      ck:fail(string.format("config.json quantization_config.%s = %s but %s %s = %s: self-contradictory checkpoint",
        k, tostring(mine), other_name, key, tostring(value)))
    end
  end
end

-- The format module name and the quantization config table it reads.
function M.detect(ck)
  local cfg = ck:config("config.json")
  local qc = cfg and cfg.quantization_config
  if qc ~= nil and type(qc) ~= "table" then ck:fail("config.json: quantization_config is not an object") end
  local hf = ck:config("hf_quant_config.json")
  if hf then
    local q = hf.quantization
    if type(q) ~= "table" then ck:fail("hf_quant_config.json has no \"quantization\" object") end
    if qc and lower(qc.quant_method) ~= "modelopt" then
      ck:fail(string.format("hf_quant_config.json says ModelOpt but config.json quant_method is %s",
        fields.name(qc.quant_method)))
    end
    if qc and qc.quant_algo and q.quant_algo and lower(qc.quant_algo) ~= lower(q.quant_algo) then
      ck:fail(string.format("config.json quant_algo %s contradicts hf_quant_config.json quant_algo %s",
        fields.name(qc.quant_algo), fields.name(q.quant_algo)))
    end
    return modules.modelopt, q
  end
  local side, side_name = ck:config("quantize_config.json"), "quantize_config.json"
  if not side then side, side_name = ck:config("quant_config.json"), "quant_config.json" end
  if qc and side then agree(ck, qc, side, side_name) end
  if not qc and side then
    qc = {}
    for k, v in pairs(side) do qc[aliases[k] or k] = v end
    if qc.quant_method == nil then qc.quant_method = side.w_bit and "awq" or "gptq" end
  end
  if not qc then
    -- A bare .safetensors file copied away from its checkpoint has no config.json at all; saying
    -- "no quantization_config in config.json" sent users looking for a file that is not there.
    if not cfg then
      ck:fail("no config.json, hf_quant_config.json, quantize_config.json or quant_config.json beside the " ..
        "weights: cannot tell the checkpoint format (pass the checkpoint directory, or keep the .safetensors " ..
        "file in it)")
    end
    ck:fail("no quantization_config in config.json, and no hf_quant_config.json, quantize_config.json or " ..
      "quant_config.json: cannot tell the checkpoint format")
  end
  local method = lower(qc.quant_method)
  if method == nil then ck:fail("config.json quantization_config has no quant_method") end
  local module = modules[method]
  if not module then
    ck:fail(string.format("quant_method %s is not a format hum converts (known: %s)", fields.name(qc.quant_method),
      known()))
  end
  return module, qc
end

local function format_module(ck)
  local name, cfg = M.detect(ck)
  return require(name), cfg
end

local function fill_summary(s, d)
  ffi.fill(s, ffi.sizeof(s))
  hum.put(s.name, d.name)
  hum.put(s.format, d.format)
  hum.put(s.scale, d.scale)
  s.weight_dtype = d.weight_dtype
  s.bits = d.bits
  s.group_size = d.group_size or 0
  s.symmetric = d.symmetric and 1 or 0
  s.act_order = d.act_order and 1 or 0
  s.n = d.n
  s.k = d.k
  s.num_experts = d.experts or 0
  hum.put(s.activations, d.activations or "")
end

-- What the listing shows of a layer, which stacking needs alike across the experts of a set.
local summary_fields = { "format", "weight_dtype", "bits", "group_size", "scale", "symmetric", "n", "k",
  "activations" }

-- The summary of layer `name`, `set` its experts or nil. The rules a conversion applies to header
-- facts alone run here too, so that a layer listed as convertible fails only on the values of its
-- tensors (docs/cli.md): N and K of at least 1 (cv.check_dims), and of an expert set every member
-- described (one the format refuses refuses the set, as converting it would) and alike expert 0.
local function describe(fmt, ck, cfg, name, set)
  local d = fmt.describe(ck, cfg, set and set[0] or name)
  cv.check_dims(d.n, d.k)
  if not set then return d end
  for e = 1, #set do experts.alike(name, e, fmt.describe(ck, cfg, set[e]), d, summary_fields) end
  d.name = name
  d.experts = #set + 1
  return d
end

function M.list(_, call)
  local ck = checkpoint.wrap(call.checkpoint)
  local fmt, cfg = format_module(ck)
  local names, sets = experts.group(fmt.names(ck, cfg))
  local s = ffi.new("hum_layer_summary")
  -- One layer the format cannot convert is listed with the reason; the others still are.
  local convertible = { [tonumber(C.HUM_ERR_FORMAT)] = true, [tonumber(C.HUM_ERR_UNSUPPORTED)] = true }
  for _, name in ipairs(names) do
    local ok, d = pcall(describe, fmt, ck, cfg, name, sets[name])
    if ok then
      fill_summary(s, d)
    elseif hum.is_error(d) and convertible[tonumber(d.status)] then
      ffi.fill(s, ffi.sizeof(s))
      hum.put(s.name, name)
      hum.put(s.error, d.message)
    else
      error(d, 0)
    end
    hum.check(C.hum_layer_list_append(call.list, s))
  end
end

-- The known formats' quant_method names into call.names (hum_runtime_formats).
function M.names(_, call)
  local text = known()
  if #text >= call.names_cap then
    hum.fail("HUM_ERR_INVALID_ARG", string.format("hum_runtime_formats: %d bytes are too few for '%s'",
      tonumber(call.names_cap), text), 0)
  end
  ffi.copy(call.names, text)
end

-- A layer is any name the format lists, or a "*" name standing for a complete expert set.
function M.load(_, call)
  local ck = checkpoint.wrap(call.checkpoint)
  local fmt, cfg = format_module(ck)
  local name = ffi.string(call.layer_name)
  local names = fmt.names(ck, cfg)
  local _, sets = experts.group(names)
  if sets[name] then
    local members = sets[name]
    local shard = call.shard
    if shard ~= nil and shard.experts ~= nil then -- expert parallelism: convert the local experts only
      members = experts.select(name, members, shard)
      call.experts_kept = 1
    end
    experts.load(name, members, function(member, w) fmt.load(ck, cfg, member, w) end, call.weight)
    return
  end
  local found = false
  for _, n in ipairs(names) do found = found or n == name end
  if not found then
    local some = {}
    for i = 1, math.min(3, #names) do some[i] = names[i] end
    ck:fail(string.format("no quantized layer \"%s\" (it has %d%s%s)", name, #names,
      #names > 0 and ", e.g. " or "", table.concat(some, ", ")))
  end
  local shard = call.shard
  local keep = shard ~= nil and shard.experts ~= nil and experts.keeper(name, shard) or nil
  if fmt.load(ck, cfg, name, call.weight, keep) == true then call.experts_kept = 1 end
end

return M
