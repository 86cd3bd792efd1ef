-- compressed-tensors (llm-compressor; vllm-project/compressed-tensors) -> standard format.
-- checkpoint-formats.md section 3.
--
-- quantization_config: format (global, or "mixed-precision" with a format per config group),
-- config_groups {name: {targets, weights: QuantizationArgs, format?}}, ignore, version.
-- Formats converted, all with weights [N, K] (MoE: [E, N, K], packed per expert slice):
--   pack-quantized        weight_packed I32 [N, words] along K: a dense LSB-first stream for
--                         version >= 0.18 (PR #732), floor(32/b) values per word before; the
--                         weight_shape I64 tensor gives [N, K]; values are the signed ints plus
--                         2^(b-1), so they are the standard's offset-binary codes as stored;
--                         asym zero points I32 [words(N), G] packed along N the same way and
--                         offset the same way; actorder "group" adds weight_g_idx I32 [K].
--   int-quantized,        weight I8 [N, K] holding signed b-bit values (b = num_bits), offset by
--   naive-quantized (int) 2^(b-1) here; asym zero points I8 [N, G] likewise.
--   float-quantized,      weight F8_E4M3 / F8_E5M2 [N, K].
--   naive-quantized (float)
--   mxfp8-quantized       weight F8_E4M3 [N, K], weight_scale U8 [N, K/32] (E8M0 exponents).
--   nvfp4-pack-quantized  weight_packed U8 [N, K/2] (element 2i in the low nibble),
--                         weight_scale F8_E4M3 [N, K/16], weight_global_scale F32 [1]:
--                         w = e2m1 * scale / global (nvfp4/helpers.py), so the standard global
--                         scale is 1 / weight_global_scale (rounded to float32).
--   mxfp4-pack-quantized  weight_packed U8 [N, K/2], weight_scale U8 [N, K/32] (E8M0).
-- weight_scale by strategy: tensor [1] (a global scale), channel [N, 1], group [N, ceil(K/gs)],
-- block [ceil(N/bh), ceil(K/bw)] (converted to float32 BLOCK scales).
-- Activations: the config group's input_activations (QuantizationArgs, checkpoint-formats.md 3.1;
-- "token (activations): dynamic only", 3.2) become the standard weight's activation scheme:
-- 8-bit float (e4m3) or symmetric int (int8) per token (strategy token), per tensor (strategy
-- tensor: static with input_scale F32 [1] / [E], the dequant multiplier as weight_scale is, 3.2
-- "Activation params use the input_ prefix"; dynamic per tensor is run per token, a finer
-- scale), per group along K (strategy group, group_size 128; mxfp8-quantized: 32), NVFP4's
-- 4-bit float per 16 (tensor_group; its input_global_scale is dropped: no GPU of this build
-- runs fp4 activations, lua/hum/layer.lua falls back). Other activation arguments (asymmetric,
-- other widths or groups) leave the layer weight-only: it runs with 16-bit activations.

local ffi = require("ffi")
local hum = require("hum")
local cv = require("hum.convert")
local fields = require("hum.fields")

local C = hum.C
local M = {}

local float_dtypes = { F16 = "float16", BF16 = "bfloat16", F32 = "float32" }

-- --- which config group governs a layer ------------------------------------------------------

-- A Python regular expression, for the subset compressed-tensors targets use ("re:.*self_attn.*";
-- "re:.*mlp\.experts.*\.(gate|up)_proj$" is outside it and refused): per top-level alternative,
-- its atoms (a Lua pattern of one character: a literal, ".", "%d", a class) each with its
-- quantifier ("", "*", "+", "?"), and whether "$" ends it. nil outside the subset.
local function regex_compile(re)
  if re:find("[()%{%}]") then return nil end
  local out = {}
  for alt in (re .. "|"):gmatch("([^|]*)|") do
    local atoms, i, anchored = {}, 1, false
    if alt:sub(1, 1) == "^" then i = 2 end
    while i <= #alt do
      local c, atom = alt:sub(i, i), nil
      if c == "\\" then
        local e = alt:sub(i + 1, i + 1)
        if e == "d" then atom = "%d" elseif e == "w" then atom = "[%w_]" elseif e == "s" then atom = "%s"
        elseif e:match("%p") then atom = "%" .. e else return nil end
        i = i + 2
      elseif c == "[" then
        local j = alt:find("]", i + 1, true)
        if not j then return nil end
        atom = (alt:sub(i, j):gsub("\\d", "%%d"))
        i = j + 1
      elseif c == "$" and i == #alt then
        anchored = true
        i = i + 1
      elseif c == "*" or c == "+" or c == "?" then
        if #atoms == 0 then return nil end
        if atoms[#atoms].q == "" then atoms[#atoms].q = c
        -- a lazy quantifier ("*?") finds a match where the greedy one does
        elseif c ~= "?" or atoms[#atoms].lazy then return nil
        else atoms[#atoms].lazy = true end
        i = i + 1
      elseif c:match("[%w_ /:-]") or c == "." then
        atom = c == "-" and "%-" or c
        i = i + 1
      else
        return nil
      end
      if atom then atoms[#atoms + 1] = { char = "^" .. atom .. "$", q = "" } end
    end
    out[#out + 1] = { atoms = atoms, anchored = anchored }
  end
  return out
end

-- Whether Python's re.match(regex, s) finds a match (anchored at the start only, unless "$"), by
-- one pass over (atom, position) pairs from the last atom back, each decided once, in two rows of
-- booleans: Lua's own patterns backtrack (a hostile target of ten ".*" held one layer's listing
-- for minutes), and a recursion over positions overflowed the stack on a name of 8,500 bytes.
local function regex_match(alts, s)
  local n = #s
  for _, alt in ipairs(alts) do
    local atoms, next_row = alt.atoms, {}
    for j = 1, n + 1 do next_row[j] = not alt.anchored or j == n + 1 end  -- past the last atom
    for i = #atoms, 1, -1 do
      local a, row = atoms[i], {}
      for j = n + 1, 1, -1 do
        local one = j <= n and s:sub(j, j):find(a.char) ~= nil
        if a.q == "" then row[j] = one and next_row[j + 1]
        elseif a.q == "?" then row[j] = next_row[j] or (one and next_row[j + 1])
        elseif a.q == "*" then row[j] = next_row[j] or (one and row[j + 1])
        else row[j] = one and (next_row[j + 1] or row[j + 1]) end
        row[j] = row[j] and true or false
      end
      next_row = row
    end
    if next_row[1] then return true end
  end
  return false
end

-- 3: exact module name, 2: regex, 1: class name ("Linear": every quantized layer is one), 0: none.
local function target_rank(ck, target, layer)
  if target == layer then return 3 end
  if target:sub(1, 3) == "re:" then
    local alts = regex_compile(target:sub(4))
    if not alts then
      hum.fail("HUM_ERR_UNSUPPORTED", string.format("%s: cannot evaluate compressed-tensors target \"%s\" " ..
        "(regex outside the supported subset)", ck.path, target), 0)
    end
    return regex_match(alts, layer) and 2 or 0
  end
  if target:match("^%u") and not target:find("%.") then return 1 end
  return 0
end

local function ignored(ck, qc, layer)
  for _, t in ipairs(type(qc.ignore) == "table" and qc.ignore or {}) do
    if type(t) == "string" and target_rank(ck, t, layer) >= 2 then return true end
  end
  return false
end

local function scheme_for(ck, qc, layer)
  local groups = qc.config_groups
  if type(groups) ~= "table" then ck:fail("compressed-tensors quantization_config has no config_groups") end
  local best, best_rank, tie = nil, 0, nil
  local names = {}
  for name in pairs(groups) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local g = groups[name]
    for _, t in ipairs(type(g.targets) == "table" and g.targets or {}) do
      local r = target_rank(ck, t, layer)
      if r > best_rank then best, best_rank, tie = name, r, nil
      elseif r == best_rank and r > 0 and best ~= name then tie = name end
    end
  end
  if not best then ck:fail("no config_groups entry targets layer " .. layer) end
  if tie then
    ck:fail(string.format("config groups \"%s\" and \"%s\" both target layer %s equally", best, tie, layer))
  end
  local g = groups[best]
  local w = g.weights
  if type(w) ~= "table" then ck:fail("config group \"" .. best .. "\" has no weights arguments") end
  local fmt = g.format or qc.format
  if fmt == nil or fmt == "mixed-precision" then
    ck:fail("config group \"" .. best .. "\" has no format (the global format is " .. tostring(qc.format) .. ")")
  end
  return { group = best, format = fmt, args = w, input = g.input_activations }
end

-- --- the layers ----------------------------------------------------------------------------

-- The dtypes of an unpacked quantized weight (int-, float-, naive-, mxfp8-quantized): such a
-- weight without its weight_scale is listed, for plan to say so; a 16-bit one is no layer.
local INT_WEIGHT, FLOAT_WEIGHT = { "I8" }, { "F8_E4M3", "F8_E5M2" }

function M.names(ck, qc)
  local seen, out = {}, {}
  local unpacked = ck:layers(".weight", ".weight_scale", { INT_WEIGHT[1], unpack(FLOAT_WEIGHT) })
  for _, list in ipairs({ ck:layers(".weight_packed"), unpacked }) do
    for _, layer in ipairs(list) do
      if not seen[layer] and not ignored(ck, qc, layer) then
        seen[layer] = true
        out[#out + 1] = layer
      end
    end
  end
  table.sort(out)
  return out
end

local function version_at_least(v, major, minor)
  local a, b = tostring(v):match("^(%d+)%.(%d+)")
  if not a then return nil end
  a, b = tonumber(a), tonumber(b)
  return a > major or (a == major and b >= minor)
end

-- The activation scheme of the layer (see the header), or nil for 16-bit activations.
local function activation_scheme(ck, a, p, layer, group)
  if type(a) ~= "table" then return nil end
  local where = "config group \"" .. group .. "\": input_activations."
  if not ck:flag(a.symmetric, true, where .. "symmetric") then return nil end
  -- dynamic: true, false, or "local" (per-group scales under a global one: NVFP4's)
  local dynamic = a.dynamic
  if dynamic ~= nil and type(dynamic) ~= "boolean" and dynamic ~= "local" then
    ck:fail(where .. "dynamic is " .. fields.show(dynamic) .. ", expected true, false or \"local\"")
  end
  local fp = a.type == "float"
  local dtype = (a.num_bits == 8 and (fp and "float8_e4m3fn" or "int8")) or
    (a.num_bits == 4 and fp and "float4_e2m1") or nil
  if dtype == nil then return nil end
  local strategy = a.strategy or (a.group_size == nil and "tensor") or "group"
  if dtype == "float4_e2m1" then
    if strategy == "tensor_group" and (a.group_size or 16) == 16 then
      return { dtype = dtype, scale = "group", group = 16 }
    end
    return nil
  end
  if strategy == "token" or (strategy == "tensor" and dynamic == true) then
    return { dtype = dtype, scale = "token" }
  end
  if strategy == "group" then
    local g = a.group_size
    if g == 128 or (g == 32 and fp) then return { dtype = dtype, scale = "group", group = g } end
    return nil
  end
  if strategy ~= "tensor" then return nil end
  local t = ck:expect(ck:companion(p.weight, layer, ".input_scale", "the static per-tensor activation scale that " ..
    where:sub(1, -2) .. " of strategy \"tensor\", not dynamic, asks for"), { "F32", "BF16", "F16" }, false)
  local v = ck:small_floats(t)
  if #v ~= math.max(1, p.experts) then ck:fail(t.name .. " must hold one scale per tensor") end
  for _, x in ipairs(v) do
    if not (x > 0 and x < math.huge) then ck:fail(t.name .. " holds " .. tostring(x) .. ", not a usable scale") end
  end
  return { dtype = dtype, scale = "tensor", input_scale = v }
end

-- The global scales of a tensor or tensor_group layer (one per expert of p), checked: the
-- listing (through plan) and the conversion (after an expert cut) both read them here.
local function global_values(ck, p)
  local count = math.max(1, p.experts)
  if p.strategy == "tensor" then return ck:global_scales(p.scale, false, count, "must hold one scale per tensor") end
  return ck:global_scales(p.global, true, count, "must hold one value per expert")
end

-- Everything about one layer, checked: dims, layout, scale and zero-point tensors.
local function plan(ck, qc, layer)
  if type(qc.transform_config) == "table" and next(qc.transform_config) ~= nil then
    hum.fail("HUM_ERR_UNSUPPORTED", ck.path .. ": compressed-tensors transform_config (rotations) is not supported", 0)
  end
  local status = qc.quantization_status
  if status ~= nil and status ~= "compressed" then
    hum.fail("HUM_ERR_UNSUPPORTED", ck.path .. ": quantization_status \"" .. tostring(status) ..
      "\": only compressed checkpoints hold quantized weights", 0)
  end
  local sc = scheme_for(ck, qc, layer)
  local a, fmt = sc.args, sc.format
  local where = "config group \"" .. sc.group .. "\": weights."
  local p = { layer = layer, format = fmt, bits = a.num_bits, type = a.type,
    sym = ck:flag(a.symmetric, true, where .. "symmetric"), strategy = a.strategy, group_size = a.group_size }
  if ck:flag(a.dynamic, false, where .. "dynamic") then
    ck:fail("config group \"" .. sc.group .. "\": dynamic weight quantization stores no scales")
  end
  if type(p.bits) ~= "number" or p.bits < 1 or p.bits > 8 then
    ck:fail("config group \"" .. sc.group .. "\": weights.num_bits = " .. tostring(p.bits) .. ", expected 1..8")
  end
  if p.strategy == nil then
    p.strategy = (a.group_size == nil and "tensor") or (a.group_size == -1 and "channel") or "group"
  end
  local fp = p.type == "float"
  if fmt == "pack-quantized" then
    if fp then ck:fail("pack-quantized holds integer weights, but config group \"" .. sc.group .. "\" says float") end
    local w = ck:expect(ck:tensor(layer .. ".weight_packed"), "I32", false)
    local ws = ck:expect(ck:tensor(layer .. ".weight_shape"), { "I64", "I32" }, { #w.shape })
    local shape = ck:small_ints(ws)
    if #w.shape ~= 2 and #w.shape ~= 3 then ck:fail(w.name .. " must be [N, words] or [E, N, words]") end
    p.experts = ck:experts(w, 2)
    if p.experts > 0 and shape[1] ~= p.experts then
      ck:fail(string.format("%s says %d experts, but %s holds %d", ws.name, shape[1], w.name, p.experts))
    end
    p.n = ck:size(shape[#shape - 1], ws.name .. "'s N")
    p.k = ck:size(shape[#shape], ws.name .. "'s K")
    local dense, aligned = cv.words(p.k, p.bits, cv.DENSE), cv.words(p.k, p.bits, cv.WORD_ALIGNED)
    local new = version_at_least(qc.version, 0, 18)
    if new == nil then
      -- No usable version: the word count decides when it can (checkpoint-formats.md 3.4).
      if dense ~= aligned then new = w.shape[#w.shape] == dense
      else new = true end
    end
    p.layout = new and cv.DENSE or cv.WORD_ALIGNED
    local words = new and dense or aligned
    if w.shape[#w.shape] ~= words then
      ck:fail(string.format("%s has %d words per row, but version %s packs K = %d values of %d bits into %d " ..
        "(<= 0.17: floor(32/b) values per word; >= 0.18: a dense stream): self-contradictory checkpoint", w.name,
        w.shape[#w.shape], tostring(qc.version), p.k, p.bits, words))
    end
    local want = { p.n, words }
    if p.experts > 0 then table.insert(want, 1, p.experts) end
    ck:expect(w, "I32", want)
    p.weight = w
  elseif fmt == "nvfp4-pack-quantized" or fmt == "mxfp4-pack-quantized" then
    if not fp or p.bits ~= 4 then
      ck:fail(fmt .. " needs 4-bit float weights in config group \"" .. sc.group .. "\"")
    end
    local w = ck:expect(ck:tensor(layer .. ".weight_packed"), "U8", false)
    if #w.shape ~= 2 and #w.shape ~= 3 then ck:fail(w.name .. " must be [N, K/2] or [E, N, K/2]") end
    p.experts = ck:experts(w, 2)
    p.n, p.k = w.shape[#w.shape - 1], 2 * w.shape[#w.shape]
    p.weight = w
  elseif fmt == "int-quantized" or fmt == "float-quantized" or fmt == "naive-quantized" or fmt == "mxfp8-quantized" then
    local w = ck:expect(ck:tensor(layer .. ".weight"), fp and FLOAT_WEIGHT or INT_WEIGHT, false)
    if fp and p.bits ~= 8 then ck:fail(fmt .. " with " .. p.bits .. "-bit float weights is not a known layout") end
    if #w.shape ~= 2 and #w.shape ~= 3 then ck:fail(w.name .. " must be [N, K] or [E, N, K]") end
    p.experts = ck:experts(w, 2)
    p.n, p.k = w.shape[#w.shape - 1], w.shape[#w.shape]
    p.weight = w
  else
    hum.fail("HUM_ERR_UNSUPPORTED", string.format("%s: layer %s: compressed-tensors format \"%s\" is not converted",
      ck.path, layer, tostring(fmt)), 0)
  end
  -- Scales.
  local lead = p.experts > 0 and { p.experts } or {}
  local function with_lead(s)
    local out = {}
    for _, d in ipairs(lead) do out[#out + 1] = d end
    for _, d in ipairs(s) do out[#out + 1] = d end
    return out
  end
  local scale = ck:companion(p.weight, layer, ".weight_scale", "its scales")
  p.scale = scale
  if fmt == "nvfp4-pack-quantized" then
    p.strategy, p.group_size = "tensor_group", 16
    ck:expect(scale, "F8_E4M3", with_lead({ p.n, math.ceil(p.k / 16) }))
    p.global = ck:expect(ck:tensor(layer .. ".weight_global_scale"), "F32", false)
  elseif fmt == "mxfp4-pack-quantized" or fmt == "mxfp8-quantized" then
    p.strategy, p.group_size = "group", 32
    ck:expect(scale, "U8", with_lead({ p.n, math.ceil(p.k / 32) }))
  elseif p.strategy == "group" then
    ck:size(p.group_size, where .. "group_size")
    ck:expect(scale, { "F16", "BF16", "F32" }, with_lead({ p.n, math.ceil(p.k / p.group_size) }))
  elseif p.strategy == "channel" then
    ck:expect(scale, { "F16", "BF16", "F32" }, with_lead({ p.n, 1 }))
  elseif p.strategy == "tensor" then
    ck:expect(scale, { "F16", "BF16", "F32" }, false)
    local count = 1
    for _, d in ipairs(scale.shape) do count = count * d end
    if count ~= math.max(1, p.experts) then ck:fail(scale.name .. " must hold one scale per tensor") end
  elseif p.strategy == "block" then
    local bs = a.block_structure
    if type(bs) == "string" then bs = { tonumber(bs:match("^(%d+)x")), tonumber(bs:match("x(%d+)$")) } end
    if type(bs) ~= "table" or #bs ~= 2 then
      ck:fail("block strategy without a block_structure [rows, cols]")
    end
    ck:size(bs[1], where .. "block_structure[1]")
    ck:size(bs[2], where .. "block_structure[2]")
    p.block = bs
    ck:expect(scale, { "F16", "BF16", "F32" }, with_lead({ math.ceil(p.n / bs[1]), math.ceil(p.k / bs[2]) }))
  else
    hum.fail("HUM_ERR_UNSUPPORTED", string.format("%s: layer %s: weight strategy \"%s\" is not converted", ck.path,
      layer, tostring(p.strategy)), 0)
  end
  -- Zero points (asymmetric ints) and act-order.
  if not p.sym then
    if fp then ck:fail("asymmetric float weights are not a compressed-tensors layout") end
    if p.strategy ~= "group" and p.strategy ~= "channel" then
      hum.fail("HUM_ERR_UNSUPPORTED",
        ck.path .. ": asymmetric " .. tostring(p.strategy) .. " zero points are not converted", 0)
    end
    local groups = p.strategy == "group" and math.ceil(p.k / p.group_size) or 1
    p.groups = groups
    local zp = ck:tensor(layer .. ".weight_zero_point")
    if fmt == "pack-quantized" then
      ck:expect(zp, "I32", with_lead({ cv.words(p.n, p.bits, p.layout), groups }))
    else
      ck:expect(zp, "I8", with_lead({ p.n, groups }))
    end
    p.zero_point = zp
  end
  local actorder = a.actorder
  if actorder == true or actorder == "group" or actorder == "dynamic" then
    if p.strategy ~= "group" then ck:fail("actorder \"group\" needs the group strategy") end
    -- stacked experts: one g_idx per expert ([E, K]), or one for all ([K])
    local g = ck:tensor(layer .. ".weight_g_idx")
    p.g_idx = ck:expect(g, "I32", (p.experts > 0 and #g.shape == 2) and { p.experts, p.k } or { p.k })
  end
  if p.strategy == "tensor" or p.strategy == "tensor_group" then global_values(ck, p) end
  p.act = activation_scheme(ck, sc.input, p, layer, sc.group)
  return p
end

local function weight_dtype(p)
  if p.type ~= "float" then return cv.dtype("uint" .. p.bits) end
  if p.bits == 4 then return cv.dtype("float4_e2m1") end
  return cv.dtype(p.weight.dtype_name == "F8_E5M2" and "float8_e5m2" or "float8_e4m3fn")
end

local scale_names = { tensor = "tensor", channel = "channel", group = "group", tensor_group = "group+tensor" }

-- k_perm from weight_g_idx, a table of one per expert (0..E-1; one for a dense layer), or nil
-- when no expert reorders; compressed-tensors initialises it to -1, and a -1 left means no
-- reorder (checkpoint-formats.md 3.2).
local function act_order(scope, ck, p)
  if not p.g_idx then return nil end
  local rows = #p.g_idx.shape == 2 and p.experts or 1
  local lo, hi = ffi.new("int64_t[1]"), ffi.new("int64_t[1]")
  local perms, any = {}, false
  for e = 0, math.max(1, p.experts) - 1 do
    local g = scope:copy(ffi.cast("const uint8_t *", p.g_idx.data) + 4 * p.k * (rows > 1 and e or 0), 4 * p.k)
    hum.check(C.hum_host_int_range(g, C.HUM_DTYPE_INT32, p.k, lo, hi))
    local perm = hi[0] ~= -1 and
      scope:group_order(g, p.k, p.group_size, string.format("%s: %s%s", ck.path, p.g_idx.name,
        rows > 1 and string.format("[%d]", e) or "")) or nil
    if not perm then
      perm = scope:buffer("int32_t", p.k)
      for j = 0, p.k - 1 do perm[j] = j end
    else
      any = true
    end
    perms[e] = perm
  end
  return any and perms or nil
end

function M.describe(ck, qc, layer)
  local p = plan(ck, qc, layer)
  local perm = cv.run(function(scope) return act_order(scope, ck, p) ~= nil end)
  local scale = scale_names[p.strategy] or
    string.format("block %dx%d", p.block and p.block[1] or 0, p.block and p.block[2] or 0)
  return { name = layer, format = "compressed-tensors/" .. p.format, weight_dtype = weight_dtype(p), bits = p.bits,
    scale = scale, group_size = (p.strategy == "group" or p.strategy == "tensor_group") and p.group_size or
      (p.strategy == "block" and p.block[2]) or 0,
    symmetric = p.sym, act_order = perm, n = p.n, k = p.k, experts = p.experts,
    activations = cv.activation_text(p.act) }
end

local function param_dtype(ck, p)
  local cfg = ck:config("config.json")
  local td = cfg and (cfg.torch_dtype or cfg.dtype)
  if td == "float16" or td == "bfloat16" then return cv.dtype(td) end
  if p.scale.dtype_name == "F16" then return cv.dtype("float16") end
  return cv.dtype("bfloat16")
end

-- Scale tensor -> standard scale fields.
local function convert_scale(scope, ck, p, out)
  local e = math.max(1, p.experts)
  if p.strategy == "tensor" then
    out.scale_type = C.HUM_SCALE_TENSOR
    out.scale_dtype = C.HUM_DTYPE_FLOAT32
    cv.set_global(out, global_values(ck, p))
  elseif p.strategy == "tensor_group" then
    local src = p.scale
    cv.set_scale(out, C.HUM_SCALE_GROUP_TENSOR, C.HUM_DTYPE_FLOAT8_E4M3FN, src.data, p.n, math.ceil(p.k / 16), 16)
    cv.set_global(out, global_values(ck, p))
  elseif p.format == "mxfp4-pack-quantized" or p.format == "mxfp8-quantized" then
    cv.set_scale(out, C.HUM_SCALE_GROUP, C.HUM_DTYPE_FLOAT8_E8M0, p.scale.data, p.n, math.ceil(p.k / 32), 32)
  elseif p.strategy == "block" then
    local rows, cols = math.ceil(p.n / p.block[1]), math.ceil(p.k / p.block[2])
    local count = e * rows * cols
    local f = scope:buffer("float", count)
    hum.check(C.hum_dtype_to_float(p.scale.dtype, scope:copy(p.scale.data, p.scale.nbytes), count, f),
      "reading " .. p.scale.name)
    cv.set_scale(out, C.HUM_SCALE_BLOCK, C.HUM_DTYPE_FLOAT32, f, rows, cols, p.block[2], p.block[1])
  else
    local dtype = cv.dtype(float_dtypes[p.scale.dtype_name])
    if p.strategy == "channel" then
      cv.set_scale(out, C.HUM_SCALE_CHANNEL, dtype, p.scale.data, p.n, 1)
    else
      cv.set_scale(out, C.HUM_SCALE_GROUP, dtype, p.scale.data, p.n, math.ceil(p.k / p.group_size), p.group_size)
    end
  end
end

-- Integer codes [E*N][K], offset binary, in checkpoint column order.
local function int_codes(scope, ck, p)
  local rows = math.max(1, p.experts) * p.n
  if p.format == "pack-quantized" then
    return scope:unpack(scope:copy(p.weight.data, p.weight.nbytes), 1, rows, p.k, p.bits, cv.ALONG_COLS, p.layout)
  end
  local half = 2 ^ (p.bits - 1)
  local codes = scope:copy(p.weight.data, p.weight.nbytes)
  cv.check_range(codes, "I8", rows * p.k, -half, half - 1, ck.path .. ": " .. p.weight.name)
  cv.add_codes(codes, rows * p.k, half, p.bits)
  return codes
end

-- Zero points as codes [E][N][G], offset binary.
local function zero_codes(scope, ck, p)
  local e, g = math.max(1, p.experts), p.groups
  local zp = p.zero_point
  if p.format == "pack-quantized" then
    return scope:unpack(scope:copy(zp.data, zp.nbytes), e, p.n, g, p.bits, cv.ALONG_ROWS, p.layout)
  end
  local half = 2 ^ (p.bits - 1)
  local codes = scope:copy(zp.data, zp.nbytes)
  cv.check_range(codes, "I8", e * p.n * g, -half, half - 1, ck.path .. ": " .. zp.name)
  cv.add_codes(codes, e * p.n * g, half, p.bits)
  return codes
end

-- Expert parallelism: the kept experts' slices of every per-expert tensor.
local function take_experts(scope, ck, p, keep)
  local ids = keep(p.experts)
  for _, f in ipairs({ "weight", "scale", "zero_point", "global", "g_idx" }) do
    local t = p[f]
    if t and not (f == "g_idx" and #t.shape == 1) then
      if t.shape[1] ~= p.experts then
        ck:fail(string.format("%s has %d leading entries, expected one per expert (%d)", t.name, t.shape[1], p.experts))
      end
      p[f] = scope:take_experts(t, ids)
    end
  end
  p.experts = #ids + 1
end

local function convert(scope, ck, p, out, keep)
  if keep and p.experts > 0 then take_experts(scope, ck, p, keep) end
  local bits = p.type == "float" and (p.bits == 4 and 4 or 8) or p.bits
  cv.begin(out, { n = p.n, k = p.k, experts = p.experts, weight_dtype = weight_dtype(p),
    param_dtype = param_dtype(ck, p) })
  if p.type == "float" then
    cv.set_weight_bytes(out, p.weight.data, p.weight.shape[#p.weight.shape], bits)
  else
    local codes = int_codes(scope, ck, p)
    local perms = act_order(scope, ck, p)
    if perms then
      codes = scope:gather_columns(codes, p.n, p.k, perms, 1)
      cv.set_k_perm(out, perms)
    end
    cv.set_weight_codes(out, codes, bits)
    if not p.sym then cv.set_zero_codes(out, zero_codes(scope, ck, p), p.groups, bits) end
  end
  convert_scale(scope, ck, p, out)
  cv.set_activation(out, p.act)
end

function M.load(ck, qc, layer, out, keep)
  local p = plan(ck, qc, layer)
  cv.run(convert, ck, p, out, keep)
  return keep ~= nil and p.experts > 0
end


return M
