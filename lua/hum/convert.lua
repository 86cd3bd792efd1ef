-- Building blocks the formats/ converters compose: scoped host buffers, the C bit-stream and
-- data-move primitives, and setters that allocate and fill the fields of a
-- hum_standard_weight (hum.h, HUM-SECTION standard). Every loop over tensor elements runs in C.

local ffi = require("ffi")
local hum = require("hum")

local C = hum.C
local M = {}

M.DENSE = C.HUM_PACK_DENSE
M.WORD_ALIGNED = C.HUM_PACK_WORD_ALIGNED
M.ALONG_COLS = C.HUM_PACK_ALONG_COLS
M.ALONG_ROWS = C.HUM_PACK_ALONG_ROWS

-- hum_dtype codes by name ("uint4", "float8_e4m3fn", ...).
function M.dtype(name)
  local out = ffi.new("hum_dtype[1]")
  hum.check(C.hum_dtype_parse(name, out))
  return out[0]
end

-- Words that `length` values of `bits` take in one packed line.
function M.words(length, bits, layout)
  return tonumber(C.hum_packed_words(length, bits, layout or M.DENSE))
end

local function shape_array(shape)
  local a = ffi.new("int64_t[4]")
  for i, d in ipairs(shape) do a[i - 1] = d end
  return a
end

-- A scope owns temporary host buffers: scope:close() frees them (also on error, see run).
local Scope = {}
Scope.__index = Scope

function M.scope() return setmetatable({ tensors = {} }, Scope) end

-- A zeroed host buffer of `count` elements of `ctype` ("uint8_t", "int32_t", "uint16_t").
function Scope:buffer(ctype, count)
  local t = ffi.new("hum_tensor[1]")
  local dtypes = { uint8_t = C.HUM_DTYPE_UINT8, int32_t = C.HUM_DTYPE_INT32, uint16_t = C.HUM_DTYPE_UINT16,
    float = C.HUM_DTYPE_FLOAT32 }
  hum.check(C.hum_host_tensor_alloc(t, dtypes[ctype], 1, shape_array({ count })), "allocating a scratch buffer")
  self.tensors[#self.tensors + 1] = t
  return ffi.cast(ctype .. " *", t[0].data)
end

function Scope:close()
  for _, t in ipairs(self.tensors) do C.hum_host_tensor_free(t) end
  self.tensors = {}
end

-- Runs fn(scope, ...) and frees the scope's buffers whatever happens.
function M.run(fn, ...)
  local scope = M.scope()
  local ok, err = pcall(fn, scope, ...)
  scope:close()
  if not ok then error(err, 0) end
  return err
end

-- Unpacks int32 words into one uint8 per value: values [b][r][c] from words packed along
-- `dim` with `layout`.
function Scope:unpack(words, b, r, c, bits, dim, layout)
  local values = self:buffer("uint8_t", math.max(1, b * r * c))
  hum.check(C.hum_unpack_bits(ffi.cast("const int32_t *", words), shape_array({ b, r, c }), bits, dim,
    layout or M.DENSE, values), "unpacking")
  return values
end

-- Bytes of a [b][r][c] array of `elem` bytes transposed to [b][c][r].
function Scope:transpose(src, b, r, c, elem)
  local dst = self:buffer("uint8_t", math.max(1, b * r * c * elem))
  hum.check(C.hum_host_transpose(src, dst, b, r, c, elem), "transposing")
  return dst
end

-- dst[row][j] = src[row][index[j]] for a [rows][cols] array of `elem`-byte elements; `index` is
-- one array, or a table of one per block of `rows` rows (experts 0..E-1 of an [E][rows][cols]).
function Scope:gather_columns(src, rows, cols, index, elem)
  local blocks = type(index) == "table" and #index + 1 or 1
  local dst = self:buffer("uint8_t", math.max(1, blocks * rows * cols * elem))
  local size = rows * cols * elem
  for b = 0, blocks - 1 do
    hum.check(C.hum_host_gather_columns(ffi.cast("const uint8_t *", src) + b * size, dst + b * size, rows, cols, cols,
      blocks > 1 and index[b] or (type(index) == "table" and index[0] or index), elem), "permuting columns")
  end
  return dst
end

-- A copy of `count` bytes (checkpoint data is read-only and may be unaligned).
function Scope:copy(src, count)
  local dst = self:buffer("uint8_t", math.max(1, count))
  ffi.copy(dst, src, count)
  return dst
end

-- Checkpoint tensor `t` (a table of lua/hum/checkpoint.lua) whose leading dimension is E, with
-- only the experts ids[0..] in that order: a copy in scratch memory (same fields).
function Scope:take_experts(t, ids)
  local slice = t.nbytes / t.shape[1]
  local count = #ids + 1
  local data = self:buffer("uint8_t", math.max(1, count * slice))
  for i = 0, count - 1 do
    ffi.copy(data + i * slice, ffi.cast("const uint8_t *", t.data) + ids[i] * slice, slice)
  end
  local shape = { count }
  for d = 2, #t.shape do shape[d] = t.shape[d] end
  return { name = t.name, dtype_name = t.dtype_name, dtype = t.dtype, shape = shape, data = data,
    nbytes = count * slice, file = t.file }
end

-- Throws unless every value of a uint8/int8/int32 array lies in [lo, hi].
function M.check_range(ptr, dtype_name, count, lo, hi, what)
  if count == 0 then return end
  local dtypes = { U8 = C.HUM_DTYPE_UINT8, I8 = C.HUM_DTYPE_INT8, I32 = C.HUM_DTYPE_INT32 }
  local mn, mx = ffi.new("int64_t[1]"), ffi.new("int64_t[1]")
  hum.check(C.hum_host_int_range(ptr, dtypes[dtype_name], count, mn, mx))
  if mn[0] < lo or mx[0] > hi then
    hum.fail("HUM_ERR_FORMAT", string.format("%s holds values in [%d, %d], outside [%d, %d]", what,
      tonumber(mn[0]), tonumber(mx[0]), lo, hi), 0)
  end
end

function M.add_codes(values, count, delta, bits)
  hum.check(C.hum_host_add_codes(values, count, delta, bits))
end

-- act-order: k_perm from g_idx, or nil when it is the identity.
function Scope:group_order(g_idx_ptr, k, group_size, what)
  local g = self:buffer("int32_t", k)
  ffi.copy(g, g_idx_ptr, 4 * k)
  local perm = self:buffer("int32_t", k)
  local identity = ffi.new("int32_t[1]")
  hum.check(C.hum_host_group_order(g, k, group_size, perm, identity), what)
  if identity[0] ~= 0 then return nil end
  return perm
end

-- --- the standard weight ------------------------------------------------------------------

local function alloc(field, dtype, shape)
  hum.check(C.hum_host_tensor_alloc(field, dtype, #shape, shape_array(shape)), "allocating the standard weight")
  return field.data
end

-- Shape with the expert dimension in front when the layer has experts.
local function lead(out, shape)
  if out.num_experts == 0 then return shape end
  local s = { tonumber(out.num_experts) }
  for _, d in ipairs(shape) do s[#s + 1] = d end
  return s
end

local function experts(out) return math.max(1, tonumber(out.num_experts)) end

-- Refuses a weight of N or K below 1 (shapes giving an empty weight), as the checkpoint's fault:
-- the standard weight's check after conversion would blame the converter. M.begin and the
-- listing (lua/hum/formats.lua) both ask here.
function M.check_dims(n, k)
  if not (n >= 1 and k >= 1) then
    hum.fail("HUM_ERR_FORMAT", string.format("the checkpoint's tensors give an empty weight: N = %s, K = %s",
      tostring(n), tostring(k)), 0)
  end
end

-- Header fields: info = {n, k, experts (0 dense), weight_dtype, param_dtype}.
function M.begin(out, info)
  M.check_dims(info.n, info.k)
  out.num_experts = info.experts or 0
  out.n = info.n
  out.k = info.k
  out.weight_dtype = info.weight_dtype
  out.param_dtype = info.param_dtype
end

-- weight from one code per byte, values [E][N][K] (checkpoint or permuted column order).
function M.set_weight_codes(out, values, bits)
  local e, n, k = experts(out), tonumber(out.n), tonumber(out.k)
  local words = alloc(out.weight, C.HUM_DTYPE_INT32, lead(out, { n, M.words(k, bits) }))
  local shape = shape_array({ e, n, k })
  hum.check(C.hum_pack_bits(values, shape, bits, M.ALONG_COLS, M.DENSE, ffi.cast("int32_t *", words)),
    "packing the weight")
end

-- weight from rows of already-packed bytes (fp8 codes, fp4 pairs low nibble first): each of the
-- E*N rows of `row_bytes` becomes a row of whole int32 words.
function M.set_weight_bytes(out, src, row_bytes, bits)
  local e, n, k = experts(out), tonumber(out.n), tonumber(out.k)
  local w = M.words(k, bits)
  local words = alloc(out.weight, C.HUM_DTYPE_INT32, lead(out, { n, w }))
  hum.check(C.hum_host_copy_rows(src, row_bytes, words, 4 * w, e * n), "copying the weight")
end

-- scale: `src` holds [E][rows][cols] elements of `dtype` (already in the standard orientation).
function M.set_scale(out, scale_type, dtype, src, rows, cols, group_size, group_size_n)
  out.scale_type = scale_type
  out.scale_dtype = dtype
  out.group_size = group_size or 0
  out.group_size_n = group_size_n or 0
  local data = alloc(out.scale, dtype, lead(out, { rows, cols }))
  local count, size = experts(out) * rows * cols, C.hum_dtype_code_size(dtype)
  ffi.copy(data, src, count * size)
  -- a NaN or infinite scale (an e8m0 0xFF is NaN) makes its whole group NaN or infinite: the
  -- checkpoint's fault, named before any GEMM runs on it (zero stays: an all-zero group's scale)
  local chunk = math.min(count, 65536)
  local f = ffi.new("float[?]", math.max(1, chunk))
  for at = 0, count - 1, chunk do
    local m = math.min(chunk, count - at)
    hum.check(C.hum_dtype_to_float(dtype, ffi.cast("const uint8_t *", data) + at * size, m, f), "reading the scales")
    for i = 0, m - 1 do
      local v = f[i]
      if v ~= v or v == math.huge or v == -math.huge then
        local e, r = math.floor((at + i) / (rows * cols)), math.floor((at + i) / cols) % rows
        -- named by N and K, the same place whichever way round the file stores them (GPTQ: [G, N])
        hum.fail("HUM_ERR_FORMAT", string.format("the weight's scales hold %s at %s%s %d, K group %d", tostring(v),
          out.num_experts > 0 and ("expert " .. e .. ", ") or "", (group_size_n or 0) > 0 and "N block" or "N",
          r, (at + i) % cols), 0)
      end
    end
  end
end

-- Integer zero points from one code per byte, values [E][N][G]; packed along N.
function M.set_zero_codes(out, values, groups, bits)
  local e, n = experts(out), tonumber(out.n)
  out.has_zero_point = 1
  out.zero_point_is_float = 0
  local words = alloc(out.zero_point, C.HUM_DTYPE_INT32, lead(out, { M.words(n, bits), groups }))
  hum.check(C.hum_pack_bits(values, shape_array({ e, n, groups }), bits, M.ALONG_ROWS, M.DENSE,
    ffi.cast("int32_t *", words)), "packing zero points")
end

-- `values` (global scales: one, or one per expert), checked: zero stays (an all-zero tensor's
-- scale); float32 must hold each: a reciprocal of a tiny divisor (compressed-tensors' 1e-45)
-- overflows to inf. The formats' plans read them through Checkpoint:global_scales, which says the
-- same naming the tensor, so that the listing refuses what M.set_global would.
function M.global_values(values)
  for i, v in ipairs(values) do
    if not (v >= 0 and v <= 3.4028234663852886e38) then
      hum.fail("HUM_ERR_FORMAT", string.format("the weight's global scale%s is %s, expected a finite value >= 0 "
        .. "that float32 holds", #values > 1 and (" of expert " .. (i - 1)) or "", tostring(v)), 0)
    end
  end
  return values
end

-- global_scale float32: one value, or one per expert.
function M.set_global(out, values)
  M.global_values(values)
  local data = ffi.cast("float *", alloc(out.global_scale, C.HUM_DTYPE_FLOAT32, { #values }))
  for i, v in ipairs(values) do data[i - 1] = v end
end

-- The checkpoint's activation scheme (hum.h, hum_standard_weight.act_dtype), or nothing for a
-- weight-only checkpoint: a = { dtype = "float8_e4m3fn" | "int8" | "float4_e2m1",
-- scale = "token" | "tensor" | "group", group = K columns per scale (group only),
-- input_scale = { float, ... } (tensor only: one, or one per expert) }.
local ACT_SCALES = { token = "HUM_ACT_SCALE_TOKEN", tensor = "HUM_ACT_SCALE_TENSOR", group = "HUM_ACT_SCALE_GROUP" }
function M.set_activation(out, a)
  if a == nil then return end
  out.act_dtype = M.dtype(a.dtype)
  out.act_scale = C[ACT_SCALES[a.scale]]
  out.act_group = a.scale == "group" and a.group or 0
  if a.scale == "tensor" then
    local data = ffi.cast("float *", alloc(out.input_scale, C.HUM_DTYPE_FLOAT32, { #a.input_scale }))
    for i, v in ipairs(a.input_scale) do data[i - 1] = v end
  end
end

local ACT_NAMES = { float8_e4m3fn = "e4m3", int8 = "int8" }

-- The scheme as `hum inspect` lists it: "e4m3 token", "int8 tensor", "e4m3 group 128", "mxfp8",
-- "nvfp4", or "" for a weight-only layer.
function M.activation_text(a)
  if a == nil then return "" end
  if a.dtype == "float4_e2m1" then return "nvfp4" end
  if a.dtype == "float8_e4m3fn" and a.group == 32 then return "mxfp8" end
  return ACT_NAMES[a.dtype] .. " " .. a.scale .. (a.scale == "group" and (" " .. a.group) or "")
end

-- bias [E][N] from checkpoint elements of `dtype`, converted to the param dtype when they differ.
function M.set_bias(out, scope, src, dtype)
  local count = experts(out) * tonumber(out.n)
  local data = alloc(out.bias, out.param_dtype, lead(out, { tonumber(out.n) }))
  if dtype == out.param_dtype then
    ffi.copy(data, src, count * C.hum_dtype_code_size(dtype))
    return
  end
  local codes = scope:copy(src, count * C.hum_dtype_code_size(dtype))
  local f = scope:buffer("float", count)
  hum.check(C.hum_dtype_to_float(dtype, codes, count, f), "reading the bias")
  hum.check(C.hum_dtype_from_float(out.param_dtype, f, count, data), "converting the bias")
end

-- k_perm: one permutation of K for a dense layer, or a table of one per expert (0..E-1) ([E, K]).
function M.set_k_perm(out, perm)
  local k = tonumber(out.k)
  local data = ffi.cast("uint8_t *", alloc(out.k_perm, C.HUM_DTYPE_INT32, lead(out, { k })))
  for e = 0, experts(out) - 1 do
    ffi.copy(data + 4 * k * e, type(perm) == "table" and perm[e] or perm, 4 * k)
  end
end

return M
