-- JSON text to Lua values for the small config files of checkpoints (config.json,
-- hf_quant_config.json, quantize_config.json), through lua-cjson: libhum links it into its
-- Lua state; a standalone LuaJIT (busted) finds Debian's lua-cjson module on its cpath.
-- Objects become tables keyed by string, arrays 1-based sequences. A null member of an object
-- is left out (every config field hum reads treats null as "not set"); a null array element
-- stays as json.null so that positions hold.

local cjson = require("cjson.safe").new()
cjson.decode_invalid_numbers(false) -- NaN/Infinity are not JSON

local M = { null = cjson.null }

local function drop_object_nulls(v)
  if type(v) ~= "table" then return v end
  local is_array = #v > 0 or next(v) == nil
  for k, x in pairs(v) do
    if x == cjson.null and not is_array then v[k] = nil else v[k] = drop_object_nulls(x) end
  end
  return v
end

-- Decodes `text`; errors are raised as "<name>: <what is wrong> at character <n>".
function M.decode(text, name)
  local v, err = cjson.decode(text)
  if err then error(string.format("%s: %s", name or "JSON", err), 0) end
  return drop_object_nulls(v)
end

return M
