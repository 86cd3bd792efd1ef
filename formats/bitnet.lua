-- BitNet b1.58 (transformers integrations/bitnet.py, quant_method "bitnet") -> standard format.
-- checkpoint-formats.md section 7.
--
-- Per layer: weight U8 [N/4, K] holding 4 ternary values per byte as t + 1 in {0, 1, 2}, planar
-- along N: with R = N/4, output row n sits in byte row n mod R at bits [2i, 2i+2), i = n div R
-- (transformers unpack_weights: unpacked[i*R:(i+1)*R] = (packed >> 2i) & 3, minus 1);
-- weight_scale BF16 [1]. Stored t + 1 becomes the standard uint2 code t + 2 (midpoint 2).
-- The scale's direction depends on linear_class (checked in transformers
-- integrations/bitnet.py): AutoBitLinear (offline) multiplies the output by weight_scale,
-- BitLinear (the default) divides it by weight_scale * input_scale in post_quant_process, so the
-- standard global scale is 1 / weight_scale there (rounded to float32).

local hum = require("hum")
local cv = require("hum.convert")

local C = hum.C
local M = {}

local WEIGHT = "U8"

-- A U8 weight (packed ternary codes) without its scale is listed, for plan to say so.
function M.names(ck) return ck:layers(".weight", ".weight_scale", { WEIGHT }) end

local function plan(ck, qc, layer)
  local cls = qc.linear_class or "bitlinear"
  if cls ~= "bitlinear" and cls ~= "autobitlinear" then
    ck:fail("bitnet linear_class \"" .. tostring(cls) .. "\", expected \"bitlinear\" or \"autobitlinear\"")
  end
  if qc.quantization_mode == "online" then
    hum.fail("HUM_ERR_UNSUPPORTED", ck.path .. ": bitnet quantization_mode \"online\" stores unquantized weights", 0)
  end
  local w = ck:expect(ck:tensor(layer .. ".weight"), WEIGHT, { false, false })
  local s = ck:expect(ck:companion(w, layer, ".weight_scale", "its scale"), { "BF16", "F16", "F32" }, false)
  local global = ck:global_scales(s, cls == "bitlinear", 1, "must be one non-zero scale")
  if global[1] == 0 then ck:fail(s.name .. " must be one non-zero scale") end
  return { weight = w, rows = w.shape[1], n = 4 * w.shape[1], k = w.shape[2], global = global }
end

function M.describe(ck, qc, layer)
  local p = plan(ck, qc, layer)
  return { name = layer, format = "bitnet", weight_dtype = cv.dtype("uint2"), bits = 2, scale = "tensor",
    group_size = 0, symmetric = true, act_order = false, n = p.n, k = p.k }
end

local function convert(scope, ck, p, out)
  local cfg = ck:config("config.json")
  local td = cfg and (cfg.torch_dtype or cfg.dtype)
  cv.begin(out, { n = p.n, k = p.k, weight_dtype = cv.dtype("uint2"),
    param_dtype = cv.dtype(td == "float16" and "float16" or "bfloat16") })
  -- The bytes as one stream of 2-bit fields: field i of byte (r, k) is element (r*K + k)*4 + i,
  -- i.e. [R*K][4]; transposed to [4][R*K] it is [4R][K] = rows i*R + r, the planar order.
  local bytes = p.rows * p.k
  local words = scope:buffer("int32_t", math.ceil(bytes / 4))
  hum.check(C.hum_host_copy_rows(p.weight.data, bytes, words, 4 * math.ceil(bytes / 4), 1))
  local fields = scope:unpack(words, 1, 1, 4 * bytes, 2, cv.ALONG_COLS)
  local codes = scope:transpose(fields, 1, bytes, 4, 1)
  cv.check_range(codes, "U8", 4 * bytes, 0, 2, ck.path .. ": " .. p.weight.name)
  cv.add_codes(codes, 4 * bytes, 1, 2)
  cv.set_weight_codes(out, codes, 2)
  out.scale_type = C.HUM_SCALE_TENSOR
  out.scale_dtype = C.HUM_DTYPE_FLOAT32
  cv.set_global(out, p.global)
end

function M.load(ck, qc, layer, out)
  cv.run(convert, ck, plan(ck, qc, layer), out)
end

return M
