-- GPTQ (AutoGPTQ, GPTQModel, optimum) -> standard format. checkpoint-formats.md section 1.
--
-- Per layer: qweight I32 [ceil(K*b/32), N], a dense LSB-first stream down K per column (3-bit
-- values straddle words); qzeros I32 [G, ceil(N*b/32)] packed along N; scales [G, N]; g_idx
-- I32 [K]; optional bias [N]. Dequant: w[n][k] = s[g][n] * (q[k][n] - z[g][n]), g = g_idx[k].
-- checkpoint_format "gptq" (v1, the default) stores z - 1 in qzeros, "gptq_v2" stores z
-- (AutoGPTQ PR #640). sym: z = 2^(b-1) for every group, so no zero point is kept; the stored
-- fields must then all read 2^(b-1) - 1 (v1) or 2^(b-1) (v2): GPTQModel v5 labels v2 zeros
-- "gptq" (vLLM PR #38966), and since sym fixes the zero at the midpoint either reading is
-- accepted; anything else contradicts sym and is refused.
-- How a v1 file was written decides how its asym zeros read. AutoGPTQ subtracts 1 field by
-- field, masked (a zero of 0 is stored as an all-ones field). GPTQModel packs v2 zeros and then
-- subtracts the per-field ones constant from whole int32 words (0x11111111 at 4 bits, 0x55555555
-- at 2, 0x01010101 at 8: ModelCloud/GPTQModel gptqmodel/utils/model.py
-- convert_gptq_v2_to_v1_format_module), so a zero of 0 borrows from the field above it; adding
-- the constant back to the whole word (mod 2^32) gives the v2 zeros exactly. GPTQModel names
-- itself in quantization_config.meta.quantizer, a list of "name:version" strings with name
-- "gptqmodel" (gptqmodel/quantization/config.py META_FIELD_QUANTIZER, META_QUANTIZER_GPTQMODEL,
-- meta_set_versionable; checkpoint-formats.md 1.6 lists meta as provenance). AutoGPTQ and unknown
-- producers keep the field rule. 3-bit keeps it for every producer: GPTQModel's int32 3-bit export
-- reverts a per-field correction instead of subtracting word constants (same file).
-- act-order (desc_act): g_idx maps each input channel to its group; the standard weight's
-- columns are sorted by group (k_perm) so that groups are contiguous again.

local ffi = require("ffi")
local hum = require("hum")
local cv = require("hum.convert")
local fields = require("hum.fields")

local C = hum.C
local M = {}

local scale_dtypes = { F16 = "float16", BF16 = "bfloat16", F32 = "float32" }

local word_ones = { [2] = 0x55555555, [4] = 0x11111111, [8] = 0x01010101 }

local function made_by_gptqmodel(qc)
  local q = type(qc.meta) == "table" and qc.meta.quantizer
  if type(q) == "string" then q = { q } end
  if type(q) ~= "table" then return false end
  for _, entry in ipairs(q) do
    if type(entry) == "string" and entry:lower():match("^%s*gptqmodel%s*:") then return true end
  end
  return false
end

local function settings(ck, qc)
  local fmt = qc.checkpoint_format
  if qc.format ~= nil and fmt ~= nil and qc.format ~= fmt then
    ck:fail(string.format("quantization_config format %s contradicts checkpoint_format %s", fields.name(qc.format),
      fields.name(fmt)))
  end
  fmt = fmt or qc.format or "gptq"
  if fmt == "marlin" or ck:flag(qc.is_marlin_format, false, "quantization_config.is_marlin_format") then
    hum.fail("HUM_ERR_UNSUPPORTED", ck.path .. ": legacy Marlin-tiled GPTQ checkpoints"
      .. " (checkpoint_format \"marlin\") are not converted; use the plain GPTQ checkpoint", 0)
  end
  if fmt ~= "gptq" and fmt ~= "gptq_v2" then
    hum.fail("HUM_ERR_UNSUPPORTED", string.format("%s: GPTQ checkpoint_format %s is not converted " ..
      "(supported: gptq, gptq_v2)", ck.path, fields.name(fmt)), 0)
  end
  if qc.pack_dtype ~= nil and qc.pack_dtype ~= "int32" then
    hum.fail("HUM_ERR_UNSUPPORTED", ck.path .. ": GPTQ pack_dtype " .. fields.name(qc.pack_dtype) ..
      " is not converted (only int32)", 0)
  end
  local bits = qc.bits
  if bits ~= 2 and bits ~= 3 and bits ~= 4 and bits ~= 8 then
    -- a missing key printed as "bits = nil" and a JSON string as a bare word: say which it is
    ck:fail("quantization_config.bits is " .. (bits == nil and "missing" or fields.show(bits)) ..
      ", expected 2, 3, 4 or 8")
  end
  local gs = qc.group_size or -1
  if gs ~= -1 and (type(gs) ~= "number" or gs < 1 or gs % 1 ~= 0 or gs >= 2 ^ 31) then
    ck:fail("quantization_config.group_size = " .. fields.show(gs) ..
      ", expected -1 or a positive integer below 2^31")
  end
  -- Loaders default a missing sym to True (checkpoint-formats.md 1.6).
  local sym = ck:flag(qc.sym, true, "quantization_config.sym")
  return { bits = bits, group_size = gs, v2 = fmt == "gptq_v2", format = fmt, sym = sym,
    word_borrow = fmt == "gptq" and bits ~= 3 and made_by_gptqmodel(qc) }
end

function M.names(ck) return ck:layers(".qweight") end

-- Tensors of one layer, checked against each other; K from g_idx when present.
local function tensors(ck, s, layer)
  local qweight = ck:expect(ck:tensor(layer .. ".qweight"), "I32", { false, false })
  local n = qweight.shape[2]
  local g_idx = ck:optional(layer .. ".g_idx")
  local k
  if g_idx then
    ck:expect(g_idx, "I32", { false })
    k = g_idx.shape[1]
  else
    k = qweight.shape[1] * 32 / s.bits
  end
  if k % 1 ~= 0 or cv.words(k, s.bits) ~= qweight.shape[1] then
    ck:fail(string.format("%s has %d rows but K = %s at %d bits needs %d (a GPTQModel \"dynamic\" per-module " ..
      "override of bits is not supported)", qweight.name, qweight.shape[1], tostring(k), s.bits, cv.words(k, s.bits)))
  end
  local gs = s.group_size == -1 and k or s.group_size
  local groups = math.ceil(k / gs)
  local scales = ck:expect(ck:companion(qweight, layer, ".scales", "its scales"), { "F16", "BF16", "F32" },
    { groups, n })
  local qzeros = ck:expect(ck:companion(qweight, layer, ".qzeros", "its zero points"), "I32",
    { groups, cv.words(n, s.bits) })
  local bias = ck:optional(layer .. ".bias")
  if bias then ck:expect(bias, { "F16", "BF16", "F32" }, { n }) end
  return { qweight = qweight, scales = scales, qzeros = qzeros, g_idx = g_idx, bias = bias, n = n, k = k,
    group_size = gs, groups = groups }
end

local function act_order(scope, ck, t)
  if not t.g_idx then return nil end
  return scope:group_order(t.g_idx.data, t.k, t.group_size, ck.path .. ": " .. t.g_idx.name)
end

function M.describe(ck, qc, layer)
  local s = settings(ck, qc)
  local t = tensors(ck, s, layer)
  local perm = cv.run(function(scope) return act_order(scope, ck, t) ~= nil end)
  return { name = layer, format = s.format, weight_dtype = cv.dtype("uint" .. s.bits), bits = s.bits,
    scale = s.group_size == -1 and "channel" or "group", group_size = s.group_size == -1 and 0 or s.group_size,
    symmetric = s.sym, act_order = perm, n = t.n, k = t.k }
end

-- Zero points as one code per byte [N][G], the true zero z.
local function zero_codes(scope, ck, s, t)
  local g, n, b = t.groups, t.n, s.bits
  local words = scope:copy(t.qzeros.data, t.qzeros.nbytes)
  local stored = scope:unpack(words, 1, g, n, b, cv.ALONG_COLS)
  local mid = 2 ^ (b - 1)
  if s.sym then
    local lo, hi = ffi.new("int64_t[1]"), ffi.new("int64_t[1]")
    hum.check(C.hum_host_int_range(stored, C.HUM_DTYPE_UINT8, g * n, lo, hi))
    local want = s.v2 and mid or mid - 1
    if lo[0] ~= hi[0] or (lo[0] ~= mid and lo[0] ~= mid - 1) then
      ck:fail(string.format("%s: sym = true but qzeros hold %d..%d; a symmetric %s checkpoint stores %d " ..
        "in every field", t.qzeros.name, tonumber(lo[0]), tonumber(hi[0]), s.format, want))
    end
    if lo[0] ~= want then
      hum.log("warn", string.format("%s: qzeros hold %s zeros although checkpoint_format is %s; " ..
        "sym = true fixes the zero point at %d", t.qzeros.name, s.v2 and "v1" or "v2", s.format, mid))
    end
    return nil
  end
  if s.word_borrow then
    local w = ffi.cast("uint32_t *", words)
    local ones = word_ones[b]
    for i = 0, t.qzeros.nbytes / 4 - 1 do w[i] = (w[i] + ones) % 0x100000000 end
    stored = scope:unpack(words, 1, g, n, b, cv.ALONG_COLS)
  elseif not s.v2 then
    cv.add_codes(stored, g * n, 1, b)
  end
  return scope:transpose(stored, 1, g, n, 1)
end

local function convert(scope, ck, s, t, out)
  local scale_dtype = cv.dtype(scale_dtypes[t.scales.dtype_name])
  local param = t.scales.dtype_name == "F32" and cv.dtype("float16") or scale_dtype
  cv.begin(out, { n = t.n, k = t.k, weight_dtype = cv.dtype("uint" .. s.bits), param_dtype = param })
  -- qweight [W(K)][N] -> codes [K][N] -> [N][K] (-> sorted by group) -> standard rows.
  local words = scope:copy(t.qweight.data, t.qweight.nbytes)
  local codes = scope:transpose(scope:unpack(words, 1, t.k, t.n, s.bits, cv.ALONG_ROWS), 1, t.k, t.n, 1)
  local perm = act_order(scope, ck, t)
  if perm then
    codes = scope:gather_columns(codes, t.n, t.k, perm, 1)
    cv.set_k_perm(out, perm)
  end
  cv.set_weight_codes(out, codes, s.bits)
  local elem = C.hum_dtype_code_size(scale_dtype)
  local scales = scope:transpose(scope:copy(t.scales.data, t.scales.nbytes), 1, t.groups, t.n, elem)
  if s.group_size == -1 then
    cv.set_scale(out, C.HUM_SCALE_CHANNEL, scale_dtype, scales, t.n, 1)
  else
    cv.set_scale(out, C.HUM_SCALE_GROUP, scale_dtype, scales, t.n, t.groups, s.group_size)
  end
  local zeros = zero_codes(scope, ck, s, t)
  if zeros then cv.set_zero_codes(out, zeros, t.groups, s.bits) end
  if t.bias then cv.set_bias(out, scope, t.bias.data, cv.dtype(scale_dtypes[t.bias.dtype_name])) end
end

function M.load(ck, qc, layer, out)
  local s = settings(ck, qc)
  local t = tensors(ck, s, layer)
  cv.run(convert, ck, s, t, out)
end

return M
