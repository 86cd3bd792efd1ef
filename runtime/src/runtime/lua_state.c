/* One LuaJIT state per hum_runtime: the hum.native table, the module searcher over
 * hum_resource_read, and the protected call that turns Lua errors into hum statuses. */
#include "lua_state.h"

#include "internal.h"
#include "resource.h"
#include "runtime.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char NATIVE[] = "hum.native";

/* The state's allocator is the system's, with a ceiling: lua/hum/sandbox.lua sets one for
 * each call into a policy file (hum.native.memory_guard), so that a file cannot exhaust the
 * host's memory; Lua then raises "not enough memory" inside that call. */
typedef struct lua_memory {
    size_t used;
    size_t limit;  /* SIZE_MAX: none */
    int refused;   /* an allocation was refused since the last memory_release */
} lua_memory;

static void *lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    lua_memory *m = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        m->used -= old;
        return NULL;
    }
    if (nsize > old && nsize - old > m->limit - m->used) {
        m->refused = 1;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p)
        m->used = m->used - old + nsize;
    return p;
}

static lua_memory *memory_of(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

/* hum.native.memory_guard(bytes): allows the state `bytes` more than it uses now (never more
 * than a guard already in force allows: a nested call shares its caller's budget), until
 * memory_release. Returns the ceiling in force before (nil: none), for memory_release. */
static int native_memory_guard(lua_State *L)
{
    lua_memory *m = memory_of(L);
    lua_Number extra = luaL_checknumber(L, 1);
    if (m->limit == SIZE_MAX)
        lua_pushnil(L);
    else
        lua_pushnumber(L, (lua_Number)m->limit);
    size_t limit = extra >= (lua_Number)(SIZE_MAX - m->used) ? SIZE_MAX : m->used + (size_t)(extra > 0 ? extra : 0);
    if (limit < m->limit)
        m->limit = limit;
    m->refused = 0;
    return 1;
}

/* hum.native.memory_release(previous): puts back the ceiling memory_guard returned. Returns
 * whether an allocation was refused since memory_guard. */
static int native_memory_release(lua_State *L)
{
    lua_memory *m = memory_of(L);
    m->limit = lua_isnil(L, 1) ? SIZE_MAX : (size_t)luaL_checknumber(L, 1);
    lua_pushboolean(L, m->refused);
    m->refused = 0;
    return 1;
}

/* hum.native.log(level, message) */
static int native_log(lua_State *L)
{
    const hum_runtime *rt = lua_touserdata(L, lua_upvalueindex(1));
    lua_Integer level = luaL_checkinteger(L, 1);
    const char *msg = luaL_checkstring(L, 2);
    if (level < HUM_LOG_ERROR || level > HUM_LOG_DEBUG)
        return luaL_error(L, "hum.native.log: level %d is not 0 (error) .. 3 (debug)", (int)level);
    hum_log(rt, (hum_log_level)level, "%s", msg);
    return 0;
}

/* With a freshly loaded chunk on top: when LuaJIT would shorten its name in messages
 * (LUA_IDSIZE), remember the full origin so lua/hum/init.lua can restore it. */
static void remember_chunk(lua_State *L, const char *origin)
{
    lua_Debug ar;
    lua_pushvalue(L, -1);
    lua_getinfo(L, ">S", &ar);
    if (strcmp(ar.short_src, origin) == 0)
        return;
    lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
    lua_getfield(L, -1, NATIVE);
    lua_getfield(L, -1, "chunks");
    lua_pushstring(L, origin);
    lua_setfield(L, -2, ar.short_src);
    lua_pop(L, 3);
}

/* package.loaders entry: "a.b" from lua/a/b.lua or lua/a/b/init.lua, "formats.x" from
 * formats/x.lua. Returns the loaded chunk, or a string saying where it looked. */
static int searcher(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    char slashed[512];
    size_t len = strlen(name);
    if (len >= sizeof slashed - 16) {
        lua_pushfstring(L, "\n\tmodule name '%s' is too long for libhum's searcher", name);
        return 1;
    }
    for (size_t i = 0; i <= len; i++)
        slashed[i] = name[i] == '.' ? '/' : name[i];
    char candidates[2][600];
    int count;
    if (strncmp(name, "formats.", 8) == 0) {
        snprintf(candidates[0], sizeof candidates[0], "%s.lua", slashed);
        count = 1;
    } else {
        snprintf(candidates[0], sizeof candidates[0], "lua/%s.lua", slashed);
        snprintf(candidates[1], sizeof candidates[1], "lua/%s/init.lua", slashed);
        count = 2;
    }
    luaL_Buffer missing;
    luaL_buffinit(L, &missing);
    for (int i = 0; i < count; i++) {
        hum_resource r;
        if (hum_resource_read(candidates[i], &r) != HUM_OK) {
            lua_pushfstring(L, "\n\t%s", hum_last_error());
            luaL_addvalue(&missing);
            continue;
        }
        char chunkname[sizeof r.origin + 1];
        snprintf(chunkname, sizeof chunkname, "@%s", r.origin);
        int rc = luaL_loadbuffer(L, r.data, r.size, chunkname);
        if (rc != 0) {
            hum_resource_free(&r);
            return luaL_error(L, "%s", lua_tostring(L, -1));
        }
        remember_chunk(L, r.origin);
        hum_resource_free(&r);
        return 1;
    }
    luaL_pushresult(&missing);
    return 1;
}

static void install_searcher(lua_State *L)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "loaders");
    /* Second place: after package.preload, before the filesystem searchers, so that hum's own
     * modules cannot be shadowed by files that happen to be in the working directory. */
    for (int i = (int)lua_objlen(L, -1); i >= 2; i--) {
        lua_rawgeti(L, -1, i);
        lua_rawseti(L, -2, i + 1);
    }
    lua_pushcfunction(L, searcher);
    lua_rawseti(L, -2, 2);
    lua_pop(L, 2);
}

static void push_symbols(lua_State *L)
{
    lua_newtable(L);
    for (const hum_lua_symbol *s = hum_lua_symbols; s->name; s++) {
        lua_createtable(L, 2, 0);
        lua_pushstring(L, s->signature);
        lua_rawseti(L, -2, 1);
        lua_pushlightuserdata(L, (void *)(uintptr_t)s->address);
        lua_rawseti(L, -2, 2);
        lua_setfield(L, -2, s->name);
    }
}

static hum_status install_native(lua_State *L, hum_runtime *rt)
{
    const char *cdef = hum_cdef();
    if (!*cdef)
        return hum_fail(HUM_ERR_INTERNAL, "libhum was built without include/hum_cdef.h embedded");
    lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
    lua_createtable(L, 0, 6);
    lua_pushstring(L, cdef);
    lua_setfield(L, -2, "cdef");
    push_symbols(L);
    lua_setfield(L, -2, "symbols");
    lua_newtable(L);
    lua_setfield(L, -2, "chunks");
    lua_pushlightuserdata(L, rt);
    lua_setfield(L, -2, "runtime");
    lua_pushlightuserdata(L, rt);
    lua_pushcclosure(L, native_log, 1);
    lua_setfield(L, -2, "log");
    lua_pushcfunction(L, native_memory_guard);
    lua_setfield(L, -2, "memory_guard");
    lua_pushcfunction(L, native_memory_release);
    lua_setfield(L, -2, "memory_release");
    lua_setfield(L, -2, NATIVE);
    lua_pop(L, 1);
    return HUM_OK;
}

/* lua-cjson is linked into libhum; make require("cjson") and require("cjson.safe") find it
 * there rather than on the host's cpath. */
int luaopen_cjson(lua_State *L);
int luaopen_cjson_safe(lua_State *L);

static void preload_cjson(lua_State *L)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_cjson);
    lua_setfield(L, -2, "cjson");
    lua_pushcfunction(L, luaopen_cjson_safe);
    lua_setfield(L, -2, "cjson.safe");
    lua_pop(L, 2);
}

hum_status hum_lua_state_open(hum_runtime *rt, lua_State **out)
{
    *out = NULL;
    lua_memory *m = calloc(1, sizeof *m);
    lua_State *L = NULL;
    if (m) {
        m->limit = SIZE_MAX;
        L = lua_newstate(lua_alloc, m);
    }
    if (!L) {
        free(m);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "cannot create a LuaJIT state (out of memory, or a LuaJIT "
                                               "built without LJ_GC64, which refuses lua_newstate on 64-bit)");
    }
    luaL_openlibs(L);
    preload_cjson(L);
    hum_status st = install_native(L, rt);
    if (st == HUM_OK) {
        install_searcher(L);
        lua_getglobal(L, "require");
        lua_pushstring(L, "hum");
        st = hum_lua_pcall(L, 1, 0);
        if (st != HUM_OK)
            hum_fail_context(st, "starting the Lua layer (lua/hum/init.lua)");
    }
    if (st != HUM_OK) {
        hum_lua_state_close(L);
        return st;
    }
    *out = L;
    return HUM_OK;
}

void hum_lua_state_close(lua_State *L)
{
    if (!L)
        return;
    lua_memory *m = memory_of(L);
    lua_close(L);
    free(m);
}

/* Message handler: lets lua/hum/init.lua (once loaded) turn any error into hum's error
 * object, so that chunk names and statuses are handled in one place. */
static int message_handler(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
    lua_getfield(L, -1, "hum");
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "_on_error");
        if (lua_isfunction(L, -1)) {
            lua_pushvalue(L, 1);
            if (lua_pcall(L, 1, 1, 0) == 0)
                return 1;
        }
    }
    lua_settop(L, 1);
    return 1;
}

/* The status and message of the error object on top of the stack. */
static hum_status error_to_status(lua_State *L, int rc)
{
    if (rc == LUA_ERRMEM)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "Lua: out of memory");
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "status");
        lua_getfield(L, -2, "message");
        hum_status status = lua_isnumber(L, -2) ? (hum_status)lua_tointeger(L, -2) : HUM_ERR_POLICY;
        const char *msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "(an error without a message)";
        if (status == HUM_OK)
            status = HUM_ERR_POLICY;
        hum_fail(status, "%s", msg);
        lua_pop(L, 2);
        return status;
    }
    if (lua_isstring(L, -1))
        return hum_fail(HUM_ERR_POLICY, "%s", lua_tostring(L, -1));
    return hum_fail(HUM_ERR_POLICY, "Lua raised an error object of type %s", luaL_typename(L, -1));
}

hum_status hum_lua_pcall(lua_State *L, int nargs, int nresults)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, message_handler);
    lua_insert(L, base);
    int rc = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    if (rc == 0)
        return HUM_OK;
    hum_status st = error_to_status(L, rc);
    lua_pop(L, 1);
    return st;
}
