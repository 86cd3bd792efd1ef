-- MoE checkpoints that store one Linear per expert (Mixtral-style
-- "model.layers.0.block_sparse_moe.experts.3.w1", Qwen/DeepSeek "mlp.experts.3.gate_proj")
-- become one MoE layer named with a "*" in place of the expert index
-- ("model.layers.0.block_sparse_moe.experts.*.w1"): the experts are converted one by one and
-- stacked along a leading E dimension of every standard tensor (hum.h: "([E,] ...)"), act-order
-- experts each with their own k_perm row (GPTQModel desc_act writes a g_idx per expert).

local ffi = require("ffi")
local hum = require("hum")

local C = hum.C
local M = {}

-- names -> the sorted list with every complete expert set (indices 0..E-1, E >= 2) replaced by
-- its "*" name, and a table "*" name -> {member names by index 0..E-1}.
function M.group(names)
  local sets, out, members = {}, {}, {}
  for _, name in ipairs(names) do
    local pre, idx, post = name:match("^(.*%.experts%.)(%d+)(%..+)$")
    if pre and tostring(tonumber(idx)) == idx then
      local key = pre .. "*" .. post
      sets[key] = sets[key] or {}
      sets[key][tonumber(idx)] = name
    else
      out[#out + 1] = name
    end
  end
  for key, set in pairs(sets) do
    local count = 0
    for _ in pairs(set) do count = count + 1 end
    local complete = count >= 2
    for i = 0, count - 1 do complete = complete and set[i] ~= nil end
    if complete then
      out[#out + 1] = key
      members[key] = set
    else
      for _, name in pairs(set) do out[#out + 1] = name end
    end
  end
  table.sort(out)
  return out, members
end

local function numel(t)
  local n = 1
  for d = 0, t.rank - 1 do n = n * tonumber(t.shape[d]) end
  return n
end

local function bytes(t) return numel(t) * C.hum_dtype_code_size(t.dtype) end

local header_fields = { "n", "k", "weight_dtype", "param_dtype", "scale_type", "group_size", "group_size_n",
  "scale_dtype", "has_zero_point", "zero_point_is_float", "act_dtype", "act_scale", "act_group" }

local stacked_fields = { "weight", "scale", "zero_point", "bias", "global_scale", "input_scale", "k_perm" }
local per_expert_scalar = { global_scale = true, input_scale = true } -- (1) per expert becomes (E)

-- Raises HUM_ERR_UNSUPPORTED unless expert `e` of layer `name` equals expert 0 in every one of
-- `fields`: experts stack only when quantized alike. Given standard weights when stacking them,
-- and the listing's summaries (lua/hum/formats.lua), so that the listing refuses what stacking would.
function M.alike(name, e, expert, first, fields)
  -- tonumber: an int64 field prints as 256, not 256LL
  local function show(v) return tostring(tonumber(v) or v) end
  for _, f in ipairs(fields) do
    if expert[f] ~= first[f] then
      hum.fail("HUM_ERR_UNSUPPORTED", string.format("layer %s: expert %d differs from expert 0 in %s (%s vs %s): " ..
        "experts stack only when quantized alike", name, e, f, show(expert[f]), show(first[f])), 0)
    end
  end
end

-- Fills `out` with the experts in `parts` (dense standard weights) stacked along E: every tensor
-- gains the leading E (a global or input scale (1) becomes (E)); act-order keeps each expert's own k_perm
-- ([E, K]; an expert whose g_idx needed no reorder gets the identity row).
local function stack(name, parts, out)
  local first = parts[0]
  local count = #parts + 1
  for e = 1, count - 1 do M.alike(name, e, parts[e], first, header_fields) end
  for _, f in ipairs(header_fields) do out[f] = first[f] end
  out.num_experts = count
  for _, field in ipairs(stacked_fields) do
    local have, missing = nil, nil
    for e = 0, count - 1 do
      if parts[e][field].data ~= nil then have = have or e else missing = missing or e end
    end
    if have and missing and field ~= "k_perm" then
      hum.fail("HUM_ERR_UNSUPPORTED", string.format("layer %s: expert %d has no %s but expert %d has one: " ..
        "experts stack only when quantized alike", name, missing, field, have), 0)
    end
    if have then
      local t = parts[have][field]
      local shape = ffi.new("int64_t[4]")
      local rank = t.rank
      shape[0] = count
      if not per_expert_scalar[field] then
        for d = 0, t.rank - 1 do shape[d + 1] = t.shape[d] end
        rank = t.rank + 1
      end
      hum.check(C.hum_host_tensor_alloc(out[field], t.dtype, rank, shape), "stacking experts of " .. name)
      local size = bytes(t)
      for e = 0, count - 1 do
        local dst = ffi.cast("uint8_t *", out[field].data) + e * size
        if parts[e][field].data ~= nil then
          ffi.copy(dst, parts[e][field].data, size)
        else
          local row = ffi.cast("int32_t *", dst)
          for j = 0, tonumber(first.k) - 1 do row[j] = j end
        end
      end
    end
  end
end

-- The expert ids a shard keeps (hum_shard.experts), checked against a layer of `total` experts:
-- a list indexed 0..count-1 in the shard's order; HUM_ERR_INVALID_ARG naming a bad id.
function M.ids(name, shard, total)
  local count = tonumber(shard.expert_count)
  if count < 1 or count > total then
    hum.fail("HUM_ERR_INVALID_ARG", string.format("layer %s: expert_count %d (expected 1..%d)", name, count, total), 0)
  end
  local out, seen = {}, {}
  for i = 0, count - 1 do
    local id = shard.experts[i]
    if id < 0 or id >= total or seen[id] then
      hum.fail("HUM_ERR_INVALID_ARG", string.format("layer %s: experts[%d] = %d is %s (the layer has experts 0..%d)",
        name, i, id, (id < 0 or id >= total) and "out of range" or "a repeat", total - 1), 0)
    end
    seen[id] = true
    out[i] = id
  end
  return out
end

-- For a fused 3-D layer: a function total -> the ids (M.ids) a format calls once it knows E.
function M.keeper(name, shard)
  return function(total) return M.ids(name, shard, total) end
end

-- The members an expert map keeps, as a set indexed 0..count-1 in the shard's order.
function M.select(name, members, shard)
  local out = {}
  for i, id in pairs(M.ids(name, shard, #members + 1)) do out[i] = members[id] end
  return out
end

-- Converts each member with load(member, standard_weight) and stacks them into `out`.
function M.load(name, members, load, out)
  local parts = {}
  local ok, err = pcall(function()
    for e = 0, #members do
      parts[e] = ffi.new("hum_standard_weight[1]")
      load(members[e], parts[e][0])
      if parts[e][0].num_experts ~= 0 then
        hum.fail("HUM_ERR_FORMAT", "layer " .. members[e] .. " already has experts; it cannot be stacked again", 0)
      end
    end
    local views = {}
    for e = 0, #members do views[e] = parts[e][0] end
    stack(name, views, out)
  end)
  for _, p in pairs(parts) do C.hum_standard_free(p) end
  if not ok then error(err, 0) end
end


return M
