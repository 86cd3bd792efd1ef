-- AWQ, AutoAWQ's GEMM layout -> standard format. checkpoint-formats.md section 2.
--
-- Per layer: qweight I32 [K, N/8] and qzeros I32 [G, N/8], 4-bit codes packed along N with the
-- nibble order 0,2,4,6,1,3,5,7 (slot i of a word holds logical column 8c + order[i]); scales
-- [G, N]; optional bias [N]. Dequant: w[n][k] = (q[k][n] - z[k/gs][n]) * s[k/gs][n], the stored
-- zero used as is (no +1, unlike GPTQ v1). Groups run along K, contiguous; no act-order.
-- Only version "gemm" is this layout: GEMV and GEMV_FAST store N-major interleaved tiles.

local hum = require("hum")
local cv = require("hum.convert")
local fields = require("hum.fields")

local C = hum.C
local M = {}

local scale_dtypes = { F16 = "float16", BF16 = "bfloat16" }

local function settings(ck, qc)
  local bits = qc.bits or qc.w_bit
  if bits ~= 4 then
    ck:fail("AWQ quantization_config.bits = " .. fields.show(bits) .. ", expected 4 (GEMM packs 4-bit)")
  end
  -- a missing version is AutoAWQ's default, GEMM; a number or a list is no version at all
  local version = qc.version == nil and "gemm" or type(qc.version) == "string" and qc.version:lower() or qc.version
  if version ~= "gemm" then
    hum.fail("HUM_ERR_UNSUPPORTED", string.format("%s: AWQ version %s is not converted (only \"gemm\")", ck.path,
      fields.name(qc.version)), 0)
  end
  if not ck:flag(qc.zero_point, true, "AWQ quantization_config.zero_point") then
    ck:fail("AWQ zero_point = false: the GEMM layout always stores zero points (AutoAWQ asserts them)")
  end
  local gs = qc.group_size or qc.q_group_size
  if type(gs) ~= "number" or (gs ~= -1 and (gs < 1 or gs % 1 ~= 0 or gs >= 2 ^ 31)) then
    ck:fail("AWQ quantization_config.group_size = " .. fields.show(gs) ..
      ", expected -1 or a positive integer below 2^31")
  end
  return { group_size = gs }
end

function M.names(ck) return ck:layers(".qweight") end

local function tensors(ck, s, layer)
  local qweight = ck:expect(ck:tensor(layer .. ".qweight"), "I32", { false, false })
  local k, n = qweight.shape[1], qweight.shape[2] * 8
  local gs = s.group_size == -1 and k or s.group_size
  if k % gs ~= 0 then ck:fail(string.format("%s: K = %d is not a multiple of group_size %d", qweight.name, k, gs)) end
  local groups = k / gs
  local scales = ck:expect(ck:companion(qweight, layer, ".scales", "its scales"), { "F16", "BF16" }, { groups, n })
  local qzeros = ck:expect(ck:companion(qweight, layer, ".qzeros", "its zero points"), "I32", { groups, n / 8 })
  local bias = ck:optional(layer .. ".bias")
  if bias then ck:expect(bias, { "F16", "BF16" }, { n }) end
  return { qweight = qweight, scales = scales, qzeros = qzeros, bias = bias, n = n, k = k, groups = groups }
end

function M.describe(ck, qc, layer)
  local s = settings(ck, qc)
  local t = tensors(ck, s, layer)
  return { name = layer, format = "awq", weight_dtype = cv.dtype("uint4"), bits = 4,
    scale = s.group_size == -1 and "channel" or "group", group_size = s.group_size == -1 and 0 or s.group_size,
    symmetric = false, act_order = false, n = t.n, k = t.k }
end

-- [rows][N] logical codes from AWQ words [rows][N/8].
local function logical(scope, words_tensor, rows, n)
  local slots = scope:unpack(scope:copy(words_tensor.data, words_tensor.nbytes), 1, rows, n, 4, cv.ALONG_COLS)
  hum.check(C.hum_awq_deinterleave(slots, rows * n, slots), "undoing the AWQ nibble order of " .. words_tensor.name)
  return slots
end

local function convert(scope, s, t, out)
  local scale_dtype = cv.dtype(scale_dtypes[t.scales.dtype_name])
  cv.begin(out, { n = t.n, k = t.k, weight_dtype = cv.dtype("uint4"), param_dtype = scale_dtype })
  cv.set_weight_codes(out, scope:transpose(logical(scope, t.qweight, t.k, t.n), 1, t.k, t.n, 1), 4)
  local elem = C.hum_dtype_code_size(scale_dtype)
  local scales = scope:transpose(scope:copy(t.scales.data, t.scales.nbytes), 1, t.groups, t.n, elem)
  if s.group_size == -1 then
    cv.set_scale(out, C.HUM_SCALE_CHANNEL, scale_dtype, scales, t.n, 1)
  else
    cv.set_scale(out, C.HUM_SCALE_GROUP, scale_dtype, scales, t.n, t.groups, s.group_size)
  end
  cv.set_zero_codes(out, scope:transpose(logical(scope, t.qzeros, t.groups, t.n), 1, t.groups, t.n, 1), t.groups, 4)
  if t.bias then cv.set_bias(out, scope, t.bias.data, cv.dtype(scale_dtypes[t.bias.dtype_name])) end
end

function M.load(ck, qc, layer, out)
  local s = settings(ck, qc)
  cv.run(convert, s, tensors(ck, s, layer), out)
end

return M
