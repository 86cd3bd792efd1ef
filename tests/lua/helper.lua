-- busted helper (--helper=tests/lua/helper.lua): modules come from the source tree, as the
-- embedded searcher maps them (hum.x -> lua/hum/x.lua, formats.x -> formats/x.lua).
-- HUM_SOURCE_DIR is the tree (default: the working directory); the ctest also sets HUM_CDEF
-- and HUM_LIB for lua/hum/ffi.lua.
local root = os.getenv("HUM_SOURCE_DIR") or "."
package.path = table.concat({ root .. "/lua/?.lua", root .. "/lua/?/init.lua", root .. "/?.lua", package.path }, ";")
