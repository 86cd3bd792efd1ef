-- The config field lists of hum.h (hum_config_fields): the fields of the layer, compute and
-- tuning configs, and the conversions between their cdata and the Lua tables policies read and
-- write. hum.h's lists are the only place a field is declared; nothing here names one.

local ffi = require("ffi")
local hum = require("hum")

local fields = {}

local CONFIGS = { [0] = "layer", "compute", "tuning" }
local KINDS = { [0] = "int", "bool", "dtype", "enum" }
local ROLES = { [0] = "in", "optional", "derived" }

local lists

local function load()
  local count = ffi.new("int32_t[1]")
  local rows = hum.C.hum_config_fields(count)
  lists = { layer = {}, compute = {}, tuning = {} }
  for i = 0, count[0] - 1 do
    local r = rows[i]
    local f = { name = ffi.string(r.name), kind = KINDS[r.kind], role = ROLES[r.role] }
    if f.kind == "enum" then
      f.names, f.codes = {}, {}
      for name in ffi.string(r.values):gmatch("%S+") do
        f.names[#f.names + 1] = name
        f.codes[name] = #f.names - 1
      end
    end
    local list = lists[CONFIGS[r.config]]
    list[#list + 1] = f
  end
end

-- The fields of "layer", "compute" or "tuning", in declaration order: { name, kind ("int",
-- "bool", "dtype", "enum"), role ("in", "optional", "derived"), names and codes (enums) }.
function fields.list(config)
  if not lists then load() end
  return lists[config]
end

-- The Lua table of config cdata: integers as numbers, booleans as booleans, dtypes and enums
-- by name (a dtype left 0 is absent).
function fields.to_table(config, cdata)
  local t = {}
  for _, f in ipairs(fields.list(config)) do
    local v = cdata[f.name]
    if f.kind == "int" then
      t[f.name] = tonumber(v)
    elseif f.kind == "bool" then
      t[f.name] = v ~= 0
    elseif f.kind == "dtype" then
      t[f.name] = v ~= 0 and ffi.string(hum.C.hum_dtype_name(v)) or nil
    else
      t[f.name] = f.names[tonumber(v) + 1]
    end
  end
  return t
end

-- A string quoted for a message: control characters, quotes and backslashes as \xHH, so that it
-- stays on the message's line and reads back unambiguously.
local function quote(s)
  return '"' .. s:gsub('[%c"\\]', function(c) return string.format("\\x%02x", c:byte()) end) .. '"'
end

-- A value from a policy as a message shows it: strings quoted and said to be strings, so that
-- block_n = "128" does not read as the number 128; tables and functions by their type only.
function fields.show(v)
  if type(v) == "string" then return quote(v) .. " (a string)" end
  if type(v) == "number" or type(v) == "boolean" or v == nil then return tostring(v) end
  return "a " .. type(v)
end

-- A value that should be a string, as a message shows it: quoted when it is one, else as show
-- does (a JSON number or list where a name belongs).
function fields.name(v)
  if type(v) == "string" then return quote(v) end
  return fields.show(v)
end

local function is_int32(x)
  return type(x) == "number" and x == math.floor(x) and x >= -2 ^ 31 and x < 2 ^ 31
end

-- Writes a policy's Lua table `t` into config cdata `out` (fields of role "in" and
-- "optional"). A missing field, a value of the wrong type and an unknown field (other than the
-- keys of `ignore`) raise HUM_ERR_POLICY naming `where` and the field; the values themselves are
-- C's to check. Returns out.
function fields.from_table(config, t, out, where, ignore)
  local function bad(msg) hum.fail("HUM_ERR_POLICY", where .. ": " .. msg, 0) end
  if type(t) ~= "table" then bad(config .. " must be a table, got " .. fields.show(t)) end
  local known, required = {}, {}
  for _, f in ipairs(fields.list(config)) do
    if f.role ~= "derived" then
      known[f.name] = f
      if f.role == "in" then required[#required + 1] = f.name end
    end
  end
  for k in pairs(t) do
    if not known[k] and not (ignore and ignore[k]) then
      local names = {}
      for _, f in ipairs(fields.list(config)) do
        if f.role ~= "derived" then names[#names + 1] = f.name end
      end
      bad(string.format("%s has an unknown field %s (fields: %s)", config,
        type(k) == "string" and ("'" .. k .. "'") or fields.show(k), table.concat(names, ", ")))
    end
  end
  for _, f in ipairs(fields.list(config)) do
    local name, v = f.name, t[f.name]
    local function expect(ok, what)
      if not ok then bad(string.format("%s.%s = %s: expected %s", config, name, fields.show(v), what)) end
    end
    if f.role == "derived" then
      v = nil -- planning fills it
    elseif v == nil then
      if f.role == "in" then
        bad(string.format("%s has no '%s' (required: %s)", config, name, table.concat(required, ", ")))
      end
      out[name] = 0
    elseif f.kind == "int" then
      local whole = type(v) == "number" and v == math.floor(v) and math.abs(v) ~= math.huge
      expect(is_int32(v), whole and "an integer within 32 bits (-2^31 .. 2^31 - 1)" or "an integer")
      out[name] = v
    elseif f.kind == "bool" then
      expect(type(v) == "boolean", "true or false")
      out[name] = v and 1 or 0
    elseif f.kind == "enum" then
      expect(f.codes[v] ~= nil, "one of " .. table.concat(f.names, ", "))
      out[name] = f.codes[v]
    else
      local code = ffi.new("hum_dtype[1]")
      expect(type(v) == "string" and hum.C.hum_dtype_parse(v, code) == 0, "a dtype name")
      out[name] = code[0]
    end
  end
  return out
end

return fields
