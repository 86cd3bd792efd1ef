/* How C code in libhum runs Lua: the one entry point into a runtime's Lua state. Private to
 * libhum (not installed).
 *
 *   hum_lua_call(rt, "hum.layer", "prepare", "hum_layer_prepare_args *", &args)
 *
 * runs require("hum.layer").prepare(rt, ffi.cast("hum_layer_prepare_args *", &args)) under the
 * runtime's Lua lock (rt arrives as a `hum_runtime *` cdata; with arg_ctype NULL the second
 * argument is nil). Results travel back through the argument struct. The ctype must be
 * declared to the FFI: hum.h types are; a module may ffi.cdef private ones itself.
 *
 * Errors: a Lua error becomes HUM_ERR_POLICY, or the status the Lua code raised with
 * hum.fail(status, ...), and hum_last_error() gives its message with file:line in front.
 * Before the call, policy files are hot-reloaded when the config asks for it (runtime.h).
 * Lua code must not call back into a C function that uses hum_lua_call on the same runtime:
 * that returns HUM_ERR_INTERNAL instead of deadlocking (require the Lua module instead). */
#ifndef HUM_LUA_BRIDGE_H
#define HUM_LUA_BRIDGE_H

#include "hum/hum.h"

hum_status hum_lua_call(hum_runtime *rt, const char *module, const char *function, const char *arg_ctype,
                        void *arg);

/* The same for a caller that already holds the Lua lock (a policy reload re-planning the
 * prepared layers); no hot-reload check. */
hum_status hum_lua_call_locked(hum_runtime *rt, const char *module, const char *function, const char *arg_ctype,
                               void *arg);

#endif
