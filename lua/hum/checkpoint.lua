-- A Lua view of an open hum_checkpoint: tensor metadata, shape checks with errors that name the
-- tensor, the decoded config files. Tensor data stays in C (mapped file); only tiny metadata
-- tensors (weight_shape, scalar scales) are ever read here, element data never is.

local ffi = require("ffi")
local hum = require("hum")
local fields = require("hum.fields")
local json = require("hum.json")

local C = hum.C
local M = {}
local Checkpoint = {}
Checkpoint.__index = Checkpoint

function M.wrap(ptr)
  return setmetatable({ ptr = ptr, path = ffi.string(C.hum_checkpoint_path(ptr)), configs = {} }, Checkpoint)
end

function Checkpoint:has(name)
  return C.hum_checkpoint_has(self.ptr, name) ~= 0
end

local function to_table(t)
  local shape = {}
  for d = 0, t.rank - 1 do shape[d + 1] = tonumber(t.shape[d]) end
  return {
    name = ffi.string(t.name),
    dtype_name = ffi.string(t.dtype_name),
    dtype = t.dtype,
    shape = shape,
    data = t.data,
    nbytes = tonumber(t.nbytes),
    file = ffi.string(t.file),
  }
end

-- The tensor `name`; raises HUM_ERR_FORMAT naming the checkpoint when it is absent.
function Checkpoint:tensor(name)
  local t = ffi.new("hum_safetensors_tensor")
  hum.check(C.hum_checkpoint_find(self.ptr, name, t))
  return to_table(t)
end

-- The tensor `name` or nil.
function Checkpoint:optional(name)
  if self:has(name) then return self:tensor(name) end
  return nil
end

-- Every tensor name, in sorted order.
function Checkpoint:names()
  local out, t = {}, ffi.new("hum_safetensors_tensor")
  for i = 0, tonumber(C.hum_checkpoint_tensor_count(self.ptr)) - 1 do
    hum.check(C.hum_checkpoint_tensor(self.ptr, i, t))
    out[#out + 1] = ffi.string(t.name)
  end
  return out
end

local function shape_string(shape)
  local parts = {}
  for i, d in ipairs(shape) do parts[i] = tostring(d) end
  return "[" .. table.concat(parts, ", ") .. "]"
end
M.shape_string = shape_string

-- The layers a format names by a tensor suffix: every prefix P with a tensor P..`suffix` (and,
-- when `companion` is given, a tensor P..`companion` too), in sorted order. This is how each
-- format lists its quantized layers (".qweight"; ".weight" with ".weight_scale"; ...).
-- `quantized` (a list of safetensors dtypes, or nil) are the dtypes only a quantized P..`suffix`
-- has (a ".weight" of F8_E4M3): such a P is a layer without its companion too, so that the
-- format's plan says what is missing (Checkpoint:companion) where the layer would have vanished
-- from the listing unexplained; a ".weight" of another dtype (BF16) without one is no layer.
function Checkpoint:layers(suffix, companion, quantized)
  local only_quantized = {}
  for _, d in ipairs(quantized or {}) do only_quantized[d] = true end
  local out, t = {}, ffi.new("hum_safetensors_tensor")
  for i = 0, tonumber(C.hum_checkpoint_tensor_count(self.ptr)) - 1 do
    hum.check(C.hum_checkpoint_tensor(self.ptr, i, t))
    local name = ffi.string(t.name)
    if #name > #suffix and name:sub(-#suffix) == suffix then
      local layer = name:sub(1, -#suffix - 1)
      if not companion or only_quantized[ffi.string(t.dtype_name)] or self:has(layer .. companion) then
        out[#out + 1] = layer
      end
    end
  end
  return out
end

-- The tensor `layer`..`suffix` that the quantized weight `w` of `layer` needs beside it (`what`
-- it holds: "its block scales"); raises HUM_ERR_FORMAT naming both tensors when it is absent.
function Checkpoint:companion(w, layer, suffix, what)
  local name = layer .. suffix
  if not self:has(name) then
    self:fail(string.format("tensor %s (%s %s) has no %s beside it (%s)",
      w.name, w.dtype_name, shape_string(w.shape), name, what))
  end
  return self:tensor(name)
end

-- A config file of the checkpoint decoded, or nil when it has none.
function Checkpoint:config(file)
  local cached = self.configs[file]
  if cached ~= nil then return cached or nil end
  local text = C.hum_checkpoint_config(self.ptr, file)
  local value = false
  if text ~= nil then
    local ok, v = pcall(json.decode, ffi.string(text), self.path .. "/" .. file)
    if not ok then hum.fail("HUM_ERR_FORMAT", v, 0) end
    value = v
  end
  self.configs[file] = value
  return value or nil
end

function Checkpoint:fail(msg)
  hum.fail("HUM_ERR_FORMAT", self.path .. ": " .. msg, 0)
end

-- A size of a config (a group or block size; `what` names it for the message): a whole number in
-- 1 .. 2^31 - 1, else HUM_ERR_FORMAT (64.5 was cut to 64, "16" or true reached arithmetic).
function Checkpoint:size(v, what)
  if type(v) ~= "number" or v ~= math.floor(v) or v < 1 or v >= 2 ^ 31 then
    self:fail(what .. " is " .. fields.show(v) .. ", expected a positive integer below 2^31")
  end
  return v
end

-- A boolean of a config (`what` names it for the message): `default` where it is missing, else
-- true or false; anything else (a string "false" is true to Lua, 0 too) raises HUM_ERR_FORMAT.
function Checkpoint:flag(v, default, what)
  if v == nil then return default end
  if type(v) ~= "boolean" then self:fail(what .. " is " .. fields.show(v) .. ", expected true or false") end
  return v
end

-- Checks a tensor's dtype (a name or a list of names) and shape (numbers, or false for "any");
-- raises HUM_ERR_FORMAT naming the tensor, what it is and what was expected.
function Checkpoint:expect(t, dtypes, shape)
  if type(dtypes) == "string" then dtypes = { dtypes } end
  local ok = false
  for _, d in ipairs(dtypes) do ok = ok or d == t.dtype_name end
  if not ok then
    self:fail(string.format("tensor %s has dtype %s, expected %s", t.name, t.dtype_name, table.concat(dtypes, " or ")))
  end
  if shape then
    local match = #shape == #t.shape
    for i = 1, #shape do match = match and (shape[i] == false or shape[i] == t.shape[i]) end
    if not match then
      local want = {}
      for i, d in ipairs(shape) do want[i] = d == false and "*" or tostring(d) end
      self:fail(string.format("tensor %s has shape %s, expected [%s]", t.name, shape_string(t.shape),
        table.concat(want, ", ")))
    end
  end
  return t
end

-- The experts of weight tensor t, whose dense form has `rank` dimensions: 0 (a dense layer) where
-- it has that rank, else its leading dimension, at least 1 (E = 0 read as a dense layer took its N x
-- K codes from a tensor of no bytes).
function Checkpoint:experts(t, rank)
  if #t.shape == rank then return 0 end
  if t.shape[1] < 1 then
    self:fail(string.format("tensor %s has shape %s: %d experts, expected at least 1", t.name, shape_string(t.shape),
      t.shape[1]))
  end
  return t.shape[1]
end

-- The global scales of tensor t, `count` values (one, or one per expert; else HUM_ERR_FORMAT:
-- "<t> <wrong_count> (it holds N values)"), checked by name: zero stays (an all-zero tensor's scale), and float32
-- must hold each (convert.set_global writes them so).
-- `inverse`: t stores divisors (compressed-tensors' weight_global_scale, BitNet's bitlinear
-- weight_scale), whose reciprocals are the scales; each must be finite and positive (1 / inf made a
-- weight of zeros, and 1 / 1e-45 overflows float32).
function Checkpoint:global_scales(t, inverse, count, wrong_count)
  local values = self:small_floats(t)
  -- the count first: a value of a list of the wrong length is no expert's
  if #values ~= count then self:fail(string.format("%s %s (it holds %d values)", t.name, wrong_count, #values)) end
  for i, v in ipairs(values) do
    local at = #values > 1 and (" (expert " .. (i - 1) .. ")") or ""
    if inverse then
      if not (v > 0 and v < math.huge) then
        self:fail(string.format("tensor %s holds %s%s, expected a finite positive divisor", t.name, tostring(v), at))
      end
      v = 1 / v
      values[i] = v
    end
    if not (v >= 0 and v <= 3.4028234663852886e38) then
      self:fail(string.format("tensor %s holds %s%s, expected a global scale >= 0 that float32 holds%s", t.name,
        tostring(inverse and 1 / v or v), at, inverse and " once inverted" or ""))
    end
  end
  return values
end

-- Values of a small integer tensor (such as compressed-tensors' weight_shape) as Lua numbers.
function Checkpoint:small_ints(t)
  local n = 1
  for _, d in ipairs(t.shape) do n = n * d end
  if n > 16 then self:fail("tensor " .. t.name .. " is too large to be a shape/metadata tensor") end
  local ctypes = { I64 = "int64_t", I32 = "int32_t", I16 = "int16_t", I8 = "int8_t", U8 = "uint8_t" }
  local ct = ctypes[t.dtype_name]
  if not ct then self:fail("tensor " .. t.name .. " has dtype " .. t.dtype_name .. ", expected an integer type") end
  local buf = ffi.new(ct .. "[?]", n)
  ffi.copy(buf, t.data, t.nbytes)
  local out = {}
  for i = 0, n - 1 do out[i + 1] = tonumber(buf[i]) end
  return out
end

-- The float64 values of a small float tensor (scalar scales, per-tensor global scales).
function Checkpoint:small_floats(t)
  local n = 1
  for _, d in ipairs(t.shape) do n = n * d end
  if n > 4096 then self:fail("tensor " .. t.name .. " is too large to be a scalar scale") end
  local floats = { F16 = true, BF16 = true, F32 = true, F64 = true, F8_E4M3 = true, F8_E5M2 = true, F8_E8M0 = true }
  if not floats[t.dtype_name] then
    self:fail("tensor " .. t.name .. " has dtype " .. t.dtype_name .. ", expected a float type")
  end
  local codes = ffi.new("uint8_t[?]", math.max(1, t.nbytes))
  ffi.copy(codes, t.data, t.nbytes)
  local out = ffi.new("double[?]", math.max(1, n))
  hum.check(C.hum_dtype_decode(t.dtype, codes, n, out), "decoding " .. t.name)
  local values = {}
  for i = 0, n - 1 do values[i + 1] = out[i] end
  return values
end

return M
