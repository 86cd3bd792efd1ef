-- hum.h for LuaJIT: ffi.cdef of the preprocessed header and `C`, through which Lua calls
-- libhum.
--
-- Inside a runtime the header text and a table of every function's address come from the
-- library itself (package.loaded["hum.native"], runtime/src/runtime/lua_state.h), so the calls work
-- whether the host linked libhum statically, as a shared library, or dlopen'ed it with
-- RTLD_LOCAL: no dynamic symbol lookup is involved. Outside a runtime (busted), HUM_CDEF names
-- the preprocessed header (<build>/runtime/hum_cdef.h) and HUM_LIB the shared library
-- (<build>/runtime/libhum.so), loaded on the first function call.

local ffi = require("ffi")

local native = package.loaded["hum.native"]
local M = {}

local function standalone_cdef()
  local path = os.getenv("HUM_CDEF")
  local f = path and io.open(path, "rb")
  if not f then
    error("hum.ffi: outside a hum runtime, set HUM_CDEF to the preprocessed hum.h "
      .. "(<build>/runtime/hum_cdef.h)" .. (path and ("; cannot read " .. path) or ""), 0)
  end
  local text = f:read("*a")
  f:close()
  return text
end

ffi.cdef(native and native.cdef or standalone_cdef())

local function embedded_lookup(_, name)
  local s = native.symbols[name]
  if not s then return ffi.C[name] end -- enum constants need no symbol
  return ffi.cast(s[1], s[2])
end

local lib
local function standalone_lookup(_, name)
  if not lib then
    local path = os.getenv("HUM_LIB")
    if not path then
      error("hum.ffi: outside a hum runtime, set HUM_LIB to libhum.so (<build>/runtime/libhum.so)", 0)
    end
    lib = ffi.load(path)
  end
  return lib[name]
end

local lookup = native and embedded_lookup or standalone_lookup
M.C = setmetatable({}, {
  __index = function(t, name)
    local value = lookup(t, name)
    rawset(t, name, value)
    return value
  end,
})

return M
