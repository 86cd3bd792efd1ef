/* hum_lua_call: C's door into the runtime's Lua state (see lua_bridge.h). */
#include "lua_bridge.h"

#include "internal.h"
#include "lua_state.h"
#include "runtime.h"

#include <errno.h>
#include <string.h>

hum_status hum_lua_call(hum_runtime *rt, const char *module, const char *function, const char *arg_ctype,
                        void *arg)
{
    if (!rt || !module || !function)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_lua_call: runtime, module and function must not be NULL");
    int rc = pthread_mutex_lock(&rt->lua_lock);
    if (rc == EDEADLK)
        return hum_fail(HUM_ERR_INTERNAL,
                        "hum_lua_call(%s.%s) was entered from Lua code running on the same runtime; "
                        "require the Lua module and call it directly instead",
                        module, function);
    if (rc != 0)
        return hum_fail(HUM_ERR_INTERNAL, "hum_lua_call(%s.%s): cannot take the Lua lock: %s", module, function,
                        strerror(rc));
    hum_policies_refresh_locked(rt);
    hum_status st = hum_lua_call_locked(rt, module, function, arg_ctype, arg);
    pthread_mutex_unlock(&rt->lua_lock);
    return st;
}

hum_status hum_lua_call_locked(hum_runtime *rt, const char *module, const char *function, const char *arg_ctype,
                               void *arg)
{
    lua_State *L = rt->L;
    int top = lua_gettop(L);
    lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
    lua_getfield(L, -1, "hum");
    lua_getfield(L, -1, "_call");
    lua_pushstring(L, module);
    lua_pushstring(L, function);
    if (arg_ctype)
        lua_pushstring(L, arg_ctype);
    else
        lua_pushnil(L);
    lua_pushlightuserdata(L, arg);
    hum_status st = hum_lua_pcall(L, 4, 0);
    lua_settop(L, top);
    return st;
}
