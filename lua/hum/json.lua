-- JSON text to Lua values, for the small config files of checkpoints (config.json,
-- hf_quant_config.json, quantize_config.json). Objects become tables keyed by string, arrays
-- 1-based sequences. A null member of an object is left out (every config field hum reads
-- treats null as "not set"); a null array element becomes json.null so that positions hold.

local M = {}

M.null = setmetatable({}, { __tostring = function() return "json.null" end })

local escapes = { ['"'] = '"', ['\\'] = '\\', ['/'] = '/', b = '\b', f = '\f', n = '\n', r = '\r', t = '\t' }

local function utf8_char(cp)
  if cp < 0x80 then return string.char(cp) end
  if cp < 0x800 then return string.char(0xC0 + math.floor(cp / 0x40), 0x80 + cp % 0x40) end
  if cp < 0x10000 then
    return string.char(0xE0 + math.floor(cp / 0x1000), 0x80 + math.floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
  end
  return string.char(0xF0 + math.floor(cp / 0x40000), 0x80 + math.floor(cp / 0x1000) % 0x40,
    0x80 + math.floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
end

-- Decodes `text`; `name` (a file name) prefixes error messages, which carry the line number.
function M.decode(text, name)
  name = name or "JSON"
  local pos = 1

  local function fail(msg)
    local line = 1
    for _ in text:sub(1, pos - 1):gmatch("\n") do line = line + 1 end
    error(string.format("%s:%d: %s", name, line, msg), 0)
  end

  local function skip()
    pos = text:find("[^ \t\r\n]", pos) or #text + 1
  end

  local value

  local function str()
    local parts, i = {}, pos + 1
    while true do
      local j = text:find('["\\%c]', i)
      if not j then pos = #text + 1; fail("unterminated string") end
      parts[#parts + 1] = text:sub(i, j - 1)
      local c = text:sub(j, j)
      if c == '"' then pos = j + 1; return table.concat(parts) end
      if c ~= "\\" then pos = j; fail("control character in string") end
      local e = text:sub(j + 1, j + 1)
      if escapes[e] then
        parts[#parts + 1] = escapes[e]
        i = j + 2
      elseif e == "u" then
        local hex = text:match("^%x%x%x%x", j + 2)
        if not hex then pos = j; fail("bad \\u escape") end
        local cp = tonumber(hex, 16)
        i = j + 6
        if cp >= 0xD800 and cp < 0xDC00 then
          local lo = text:match("^\\u(%x%x%x%x)", i)
          lo = lo and tonumber(lo, 16)
          if not lo or lo < 0xDC00 or lo > 0xDFFF then pos = j; fail("unpaired UTF-16 surrogate") end
          cp = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00)
          i = i + 6
        end
        parts[#parts + 1] = utf8_char(cp)
      else
        pos = j; fail("bad escape \\" .. e)
      end
    end
  end

  local function num()
    local s = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
    local n = s and s:match("^-?0%d") == nil and tonumber(s)
    if not n then fail("bad number") end
    pos = pos + #s
    return n
  end

  local function array()
    local out, n = {}, 0
    pos = pos + 1
    skip()
    if text:sub(pos, pos) == "]" then pos = pos + 1; return out end
    while true do
      local v = value()
      n = n + 1
      out[n] = v == nil and M.null or v
      skip()
      local c = text:sub(pos, pos)
      pos = pos + 1
      if c == "]" then return out end
      if c ~= "," then pos = pos - 1; fail("expected ',' or ']' in array") end
    end
  end

  local function object()
    local out = {}
    pos = pos + 1
    skip()
    if text:sub(pos, pos) == "}" then pos = pos + 1; return out end
    while true do
      skip()
      if text:sub(pos, pos) ~= '"' then fail("expected a string key") end
      local k = str()
      skip()
      if text:sub(pos, pos) ~= ":" then fail("expected ':' after key \"" .. k .. "\"") end
      pos = pos + 1
      out[k] = value()
      skip()
      local c = text:sub(pos, pos)
      pos = pos + 1
      if c == "}" then return out end
      if c ~= "," then pos = pos - 1; fail("expected ',' or '}' in object") end
    end
  end

  local literals = { ["true"] = true, ["false"] = false }

  value = function()
    skip()
    local c = text:sub(pos, pos)
    if c == "{" then return object() end
    if c == "[" then return array() end
    if c == '"' then return str() end
    if c == "-" or c:match("%d") then return num() end
    for word, v in pairs(literals) do
      if text:sub(pos, pos + #word - 1) == word then pos = pos + #word; return v end
    end
    if text:sub(pos, pos + 3) == "null" then pos = pos + 4; return nil end
    if c == "" then fail("unexpected end of input") end
    fail("unexpected character '" .. c .. "'")
  end

  local v = value()
  skip()
  if pos <= #text then fail("trailing characters after the JSON value") end
  return v
end

return M
