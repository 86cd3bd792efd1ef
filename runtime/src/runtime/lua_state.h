/* The LuaJIT state each hum_runtime embeds. Private to the runtime's own files; other C code
 * enters Lua only through hum_lua_call (lua_bridge.h).
 *
 * What the state provides to Lua before any module runs: package.loaded["hum.native"], a
 * table with
 *   cdef      the preprocessed hum.h (embedded "include/hum_cdef.h"), for ffi.cdef
 *   symbols   name -> {signature, address} of every function hum.h declares, so that
 *             lua/hum/ffi.lua can call libhum however the host linked it (statically, as a
 *             shared library, or dlopen'ed with RTLD_LOCAL), with no dynamic symbol lookup
 *   chunks    short_src -> full origin, for chunk names LuaJIT truncates in messages
 *   runtime   the hum_runtime as a light userdata
 *   log       log(level, message) at the runtime's log level (0 error .. 3 debug)
 *   memory_guard(bytes), memory_release(previous)
 *             a ceiling on the state's memory for the duration of a call into a policy file
 *             (lua/hum/sandbox.lua): allocations past it fail with "not enough memory"
 * and a package searcher (before the filesystem ones) that loads module "a.b" from
 * lua/a/b.lua or lua/a/b/init.lua, and "formats.x" from formats/x.lua, through
 * hum_resource_read (embedded copies, HUM_LUA_PATH / HUM_FORMAT_PATH overrides). */
#ifndef HUM_LUA_STATE_H
#define HUM_LUA_STATE_H

#include "hum/hum.h"

#include <lua.h>

typedef void (*hum_lua_fn)(void);

typedef struct hum_lua_symbol {
    const char *name;
    const char *signature; /* the function's pointer type, e.g. "const char *(*)(void)" */
    hum_lua_fn address;
} hum_lua_symbol;

/* Generated at build time from hum_cdef.h (tools/symgen.c); ends with a NULL name. */
extern const hum_lua_symbol hum_lua_symbols[];

/* A new state with the standard libraries, hum.native and the searcher, after `require "hum"`
 * has checked the FFI binding. HUM_ERR_POLICY with the Lua message if that fails. */
hum_status hum_lua_state_open(hum_runtime *rt, lua_State **out);
void hum_lua_state_close(lua_State *L);

/* lua_pcall with hum's message handler: on failure the error is turned into a status and
 * hum_last_error() message (a `hum.fail` error keeps its status; any other is HUM_ERR_POLICY
 * with the file:line Lua put in front), and the stack is left as it was before the function
 * and its arguments were pushed. On success the results are left on the stack. */
hum_status hum_lua_pcall(lua_State *L, int nargs, int nresults);

#endif
