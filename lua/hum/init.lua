-- The root of hum's Lua layer: errors, logging, chunk loading and the entry point C uses
-- (hum_lua_call in runtime/src/runtime/lua_bridge.h). The decisions themselves live in the modules
-- beside it (hum.policy, formats.*, the layer modules); this file carries what they share.
--
-- Inside a runtime, package.loaded["hum.native"] is set by runtime/src/runtime/lua_state.c. Outside
-- one (busted), it is absent: logging goes to stderr and hum.C comes from HUM_LIB (hum.ffi).

local ffi = require("ffi")

local hum = {}
local native = package.loaded["hum.native"]
-- short_src -> full origin for chunk names LuaJIT shortens in messages (LUA_IDSIZE).
local chunks = native and native.chunks or {}

local LEVELS = { error = 0, warn = 1, info = 2, debug = 3 }

-- `hum.C.<function>` calls libhum; `hum.C.<ENUM_CONSTANT>` reads hum.h's constants.
setmetatable(hum, {
  __index = function(t, key)
    if key == "C" then
      local C = require("hum.ffi").C
      rawset(t, "C", C)
      return C
    end
  end,
})

-- A hum_status from a number or its name ("HUM_ERR_FORMAT").
function hum.status(status)
  if type(status) == "string" then
    require("hum.ffi")
    local ok, value = pcall(function() return ffi.C[status] end)
    if not ok or type(value) ~= "number" then
      error("hum.status: unknown status name '" .. status .. "'", 2)
    end
    return value
  end
  if type(status) ~= "number" then
    error("hum.status: expected a status number or name, got " .. type(status), 2)
  end
  return status
end

-- Restores the full chunk origin in front of a "file:line: message" LuaJIT shortened.
function hum.fix_location(msg)
  local src, rest = tostring(msg):match("^(.-):(%d+:.*)$")
  if src and chunks[src] then return chunks[src] .. ":" .. rest end
  return tostring(msg)
end

-- Protected, so that code given a hum error (a policy file's pcall) cannot reach or change it.
local error_mt = { __tostring = function(e) return e.message end, __metatable = "hum error" }

-- Raises a hum error: `status` (number or name) travels back to C as the call's status.
-- `level` is as for error(): 1 (default) puts the caller's file:line in front, 2 its caller's,
-- 0 nothing (use 0 when the message already names the file at fault).
function hum.fail(status, msg, level)
  level = level == nil and 1 or level
  msg = tostring(msg)
  if level > 0 then
    local info = debug.getinfo(level + 1, "Sl")
    if info and info.currentline and info.currentline > 0 then
      msg = string.format("%s:%d: %s", chunks[info.short_src] or info.short_src, info.currentline, msg)
    end
  end
  error(setmetatable({ status = hum.status(status), message = msg }, error_mt), 0)
end

function hum.is_error(e) return debug.getmetatable(e) == error_mt end

-- The message of any error value (a hum error, a Lua string error, anything else).
function hum.message(e)
  if hum.is_error(e) then return e.message end
  return hum.fix_location(e)
end

-- Raises when a libhum call failed: the status it returned and hum_last_error(), after
-- `context` ("reading model.safetensors").
function hum.check(status, context)
  status = tonumber(status)
  if status ~= 0 then
    local msg = ffi.string(hum.C.hum_last_error())
    hum.fail(status, context and (context .. ": " .. msg) or msg, 0)
  end
end

-- Compiles Lua source text as the chunk `origin` (a file path or "embedded:..."), so that
-- its errors read "origin:line: ...". Raises HUM_ERR_POLICY with that message on a syntax
-- error, or when `text` is precompiled bytecode (which LuaJIT does not verify). `env`, when
-- given, becomes the chunk's globals.
function hum.load_chunk(text, origin, env)
  if text:byte(1) == 27 then
    hum.fail("HUM_ERR_POLICY", origin .. ": is precompiled Lua bytecode; hum loads Lua source only", 0)
  end
  local fn, err = loadstring(text, "@" .. origin)
  if not fn then
    local short = err:match("^(.-):%d+:")
    if short and short ~= origin then chunks[short] = origin end
    hum.fail("HUM_ERR_POLICY", hum.fix_location(err), 0)
  end
  local short = debug.getinfo(fn, "S").short_src
  if short ~= origin then chunks[short] = origin end
  if env then setfenv(fn, env) end
  return fn
end

-- `text` into the C char array `dst`, cut with "..." when it does not fit, so that a reader
-- (a listing, a message, a note) never takes a cut string for a whole one.
function hum.put(dst, text)
  local cap = ffi.sizeof(dst)
  if #text >= cap then text = text:sub(1, cap - 4) .. "..." end
  ffi.copy(dst, text)
end

-- Logs at `level` ("error", "warn", "info", "debug") under the runtime's log_level.
function hum.log(level, msg)
  local n = LEVELS[level]
  if not n then error("hum.log: unknown level '" .. tostring(level) .. "'", 2) end
  if native then
    native.log(n, tostring(msg))
  elseif n <= LEVELS.warn then
    io.stderr:write("hum: ", level, ": ", tostring(msg), "\n")
  end
end

-- The hum_runtime * this state belongs to; nil outside a runtime.
function hum.runtime()
  if not native then return nil end
  local rt = ffi.cast("hum_runtime *", native.runtime)
  hum.runtime = function() return rt end
  return rt
end

-- Message handler of every protected call from C: any error becomes a hum error object. A
-- value that is neither a string nor a hum error is described by its type only: running its
-- __tostring could run anything.
function hum._on_error(e)
  if hum.is_error(e) then return e end
  local msg = hum.fix_location(type(e) == "string" and e or ("Lua raised an error value of type " .. type(e)))
  hum.log("debug", debug.traceback(msg, 2))
  return setmetatable({ status = hum.status("HUM_ERR_POLICY"), message = msg }, error_mt)
end

-- hum_lua_call's trampoline: require(module)[fname](runtime, ffi.cast(ctype, arg)).
function hum._call(module, fname, ctype, arg)
  local m = require(module)
  local f = type(m) == "table" and m[fname]
  if type(f) ~= "function" then
    hum.fail("HUM_ERR_INTERNAL", string.format("Lua module '%s' has no function '%s'", module, fname), 0)
  end
  return f(hum.runtime(), ctype and ffi.cast(ctype, arg) or nil)
end

-- Inside a runtime, prove at start-up that the FFI reaches libhum however it was linked.
if native then
  hum.version = ffi.string(hum.C.hum_version())
end

return hum
