/* Policy layers -> lua/hum/policy.lua. C finds and reads the files and stamps them for hot
 * reload (file-system work); Lua compiles, validates, layers and swaps them in (decisions).
 *
 * Layers, in order (later ones win for the devices they apply to):
 *   builtin  policies/<name>.lua: the names embedded in libhum plus the *.lua files of the
 *            HUM_POLICY_PATH directories, each read through hum_resource_read (a file in those
 *            directories replaces the embedded one of the same name), sorted by name;
 *   site     the config's policy_paths in order: a file, or a directory's *.lua sorted by name;
 *   overrides the config's `overrides` map, handed to Lua as {["moe.activation"] = "mxfp8"}. */
#include "embed.h"
#include "internal.h"
#include "lua_state.h"
#include "regular_file.h"
#include "resource.h"
#include "runtime.h"

#include <dirent.h>
#include <lauxlib.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char BUILTIN_DIR[] = "policies/";

/* --- a growable, sortable list of strings ------------------------------------------------ */

typedef struct strlist {
    char **items;
    int32_t count, cap;
} strlist;

static void strlist_free(strlist *l)
{
    for (int32_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* Takes ownership of `s` (freed on failure). */
static hum_status strlist_take(strlist *l, char *s)
{
    if (s && l->count == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 16;
        char **grown = realloc(l->items, (size_t)cap * sizeof *grown);
        if (!grown) {
            free(s);
            s = NULL;
        } else {
            l->items = grown;
            l->cap = cap;
        }
    }
    if (!s)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "listing policy files: out of memory");
    l->items[l->count++] = s;
    return HUM_OK;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void strlist_sort_unique(strlist *l)
{
    if (l->count == 0)
        return;
    qsort(l->items, (size_t)l->count, sizeof *l->items, cmp_str);
    int32_t kept = 1;
    for (int32_t i = 1; i < l->count; i++) {
        if (strcmp(l->items[i], l->items[kept - 1]) == 0)
            free(l->items[i]);
        else
            l->items[kept++] = l->items[i];
    }
    l->count = kept;
}

static char *join_path(const char *dir, size_t dir_len, const char *name)
{
    size_t len = dir_len + 1 + strlen(name) + 1;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%.*s/%s", (int)dir_len, dir, name);
    return p;
}

/* A policy file name: "*.lua", not hidden (editors keep their swap files hidden). */
static int is_policy_name(const char *name)
{
    size_t len = strlen(name);
    return name[0] != '.' && len > 4 && strcmp(name + len - 4, ".lua") == 0;
}

/* Appends the sorted *.lua names of directory `dir` to `out`. A *.lua name that is no regular
 * file (a directory, a FIFO, a broken link) fails, naming it: skipped, it hid a policy its author
 * meant to load, and a FIFO would block the read. */
static hum_status list_dir(const char *dir, strlist *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return hum_fail(HUM_ERR_IO, "cannot list policy directory %s: %s", dir, strerror(errno));
    strlist found = {0};
    hum_status st = HUM_OK;
    struct dirent *e;
    while (st == HUM_OK && (e = readdir(d)) != NULL) {
        if (!is_policy_name(e->d_name))
            continue;
        char *path = join_path(dir, strlen(dir), e->d_name);
        if (!path) {
            st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "listing policy directory %s: out of memory", dir);
            break;
        }
        struct stat sb, lsb;
        const int linked = lstat(path, &lsb) == 0 && S_ISLNK(lsb.st_mode);
        if (stat(path, &sb) != 0)
            st = linked ? hum_fail(HUM_ERR_IO, "policy directory %s: %s is a broken symbolic link", dir, e->d_name)
                        : hum_fail(HUM_ERR_IO, "policy directory %s: cannot read %s: %s", dir, e->d_name,
                                   strerror(errno));
        else if (!S_ISREG(sb.st_mode))
            st = hum_fail(HUM_ERR_IO, "policy directory %s: %s is %s, not a policy file (rename it without .lua)",
                          dir, e->d_name,
                          S_ISDIR(sb.st_mode)    ? "a directory"
                          : S_ISFIFO(sb.st_mode) ? "a FIFO"
                          : S_ISSOCK(sb.st_mode) ? "a socket"
                                                 : "a device");
        else
            st = strlist_take(&found, strdup(e->d_name));
        free(path);
    }
    closedir(d);
    strlist_sort_unique(&found);
    for (int32_t i = 0; st == HUM_OK && i < found.count; i++) {
        st = strlist_take(out, found.items[i]);
        found.items[i] = NULL;
    }
    strlist_free(&found);
    return st;
}

/* --- stamps: what each file and directory looked like --------------------------------------- */

void hum_stamp_list_free(hum_stamp_list *l)
{
    for (int32_t i = 0; i < l->count; i++)
        free(l->items[i].path);
    free(l->items);
    memset(l, 0, sizeof *l);
}

static hum_status stamp_push(hum_stamp_list *l, const char *path, int32_t *cap, int *is_dir)
{
    if (l->count == *cap) {
        int32_t grown_cap = *cap ? *cap * 2 : 16;
        hum_file_stamp *grown = realloc(l->items, (size_t)grown_cap * sizeof *grown);
        if (!grown)
            return hum_fail(HUM_ERR_OUT_OF_MEMORY, "stamping policy files: out of memory");
        l->items = grown;
        *cap = grown_cap;
    }
    hum_file_stamp *s = &l->items[l->count];
    memset(s, 0, sizeof *s);
    if (!(s->path = strdup(path)))
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "stamping policy files: out of memory");
    struct stat sb;
    if (stat(path, &sb) == 0) {
        s->exists = 1;
        s->dev = sb.st_dev;
        s->ino = sb.st_ino;
        s->size = sb.st_size;
        s->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    }
    if (is_dir)
        *is_dir = s->exists && S_ISDIR(sb.st_mode);
    l->count++;
    return HUM_OK;
}

/* Stamps `path`, and when it is a directory, the directory and each policy file in it. */
static hum_status stamp_tree(hum_stamp_list *l, int32_t *cap, const char *path, size_t len)
{
    char *p = strndup(path, len);
    if (!p)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "stamping policy files: out of memory");
    int is_dir = 0;
    hum_status st = stamp_push(l, p, cap, &is_dir);
    strlist names = {0};
    if (st == HUM_OK && is_dir && list_dir(p, &names) != HUM_OK)
        hum_clear_error(); /* an unreadable directory stays stamped as it is; the load reports it */
    for (int32_t i = 0; st == HUM_OK && i < names.count; i++) {
        char *f = join_path(p, len, names.items[i]);
        st = f ? stamp_push(l, f, cap, NULL) : hum_fail(HUM_ERR_OUT_OF_MEMORY, "stamping policy files");
        free(f);
    }
    strlist_free(&names);
    free(p);
    return st;
}

static hum_status collect_stamps(const hum_runtime *rt, hum_stamp_list *out)
{
    memset(out, 0, sizeof *out);
    int32_t cap = 0;
    hum_status st = HUM_OK;
    const char *dirs = hum_resource_override(BUILTIN_DIR);
    for (const char *d = dirs; st == HUM_OK && d && *d;) {
        size_t len = strcspn(d, ":");
        if (len)
            st = stamp_tree(out, &cap, d, len);
        d += len + (d[len] == ':');
    }
    for (int32_t i = 0; st == HUM_OK && i < rt->config.policy_path_count; i++)
        st = stamp_tree(out, &cap, rt->config.policy_paths[i], strlen(rt->config.policy_paths[i]));
    /* the config file too: its overrides are re-read by a reload */
    if (st == HUM_OK && rt->config_path)
        st = stamp_tree(out, &cap, rt->config_path, strlen(rt->config_path));
    if (st != HUM_OK)
        hum_stamp_list_free(out);
    return st;
}

static int stamps_equal(const hum_stamp_list *a, const hum_stamp_list *b)
{
    if (a->count != b->count)
        return 0;
    for (int32_t i = 0; i < a->count; i++) {
        const hum_file_stamp *x = &a->items[i], *y = &b->items[i];
        if (strcmp(x->path, y->path) || x->exists != y->exists || x->dev != y->dev || x->ino != y->ino ||
            x->size != y->size || x->mtime_ns != y->mtime_ns)
            return 0;
    }
    return 1;
}

/* --- sources: the text of every policy file, in layering order ----------------------------- */

typedef struct source {
    char *origin;
    char *text;
    size_t size;
    const char *layer; /* "builtin" or "site" */
} source;

typedef struct source_list {
    source *items;
    int32_t count, cap;
} source_list;

static void sources_free(source_list *l)
{
    for (int32_t i = 0; i < l->count; i++) {
        free(l->items[i].origin);
        free(l->items[i].text);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* Takes ownership of `r`'s buffer. */
static hum_status sources_take(source_list *l, hum_resource *r, const char *layer)
{
    if (l->count == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 16;
        source *grown = realloc(l->items, (size_t)cap * sizeof *grown);
        if (!grown) {
            hum_resource_free(r);
            return hum_fail(HUM_ERR_OUT_OF_MEMORY, "reading policy files: out of memory");
        }
        l->items = grown;
        l->cap = cap;
    }
    char *origin = strdup(r->origin);
    if (!origin) {
        hum_resource_free(r);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "reading policy files: out of memory");
    }
    l->items[l->count++] = (source){origin, r->data, r->size, layer};
    r->data = NULL;
    return HUM_OK;
}

static hum_status read_file(const char *path, hum_resource *out)
{
    memset(out, 0, sizeof *out);
    const char *why;
    FILE *f = hum_fopen_regular(path, 0, &why);
    if (!f)
        return hum_fail(HUM_ERR_IO, "cannot open policy file %s: %s", path, why);
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0 && (out->data = malloc((size_t)size + 1)) != NULL &&
        fread(out->data, 1, (size_t)size, f) == (size_t)size) {
        fclose(f);
        out->data[size] = '\0';
        out->size = (size_t)size;
        snprintf(out->origin, sizeof out->origin, "%s", path);
        return HUM_OK;
    }
    fclose(f);
    free(out->data);
    out->data = NULL;
    return hum_fail(HUM_ERR_IO, "cannot read policy file %s", path);
}

static hum_status collect_builtin(source_list *out)
{
    strlist names = {0};
    hum_status st = HUM_OK;
    size_t prefix = strlen(BUILTIN_DIR);
    for (int i = 0; st == HUM_OK && i < hum_embedded_file_count; i++) {
        const char *p = hum_embedded_files[i].path;
        if (strncmp(p, BUILTIN_DIR, prefix) == 0 && !strchr(p + prefix, '/') && is_policy_name(p + prefix))
            st = strlist_take(&names, strdup(p + prefix));
    }
    const char *dirs = hum_resource_override(BUILTIN_DIR);
    for (const char *d = dirs; st == HUM_OK && d && *d;) {
        size_t len = strcspn(d, ":");
        char dir[4096];
        struct stat sb;
        /* A missing directory is skipped, as in every HUM_*_PATH (warned about at runtime
         * creation, hum_runtime_create). */
        if (len && snprintf(dir, sizeof dir, "%.*s", (int)len, d) > 0 && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            st = list_dir(dir, &names);
            if (st != HUM_OK)
                hum_fail_context(st, "HUM_POLICY_PATH");
        }
        d += len + (d[len] == ':');
    }
    strlist_sort_unique(&names);
    for (int32_t i = 0; st == HUM_OK && i < names.count; i++) {
        char rel[1024];
        snprintf(rel, sizeof rel, "%s%s", BUILTIN_DIR, names.items[i]);
        hum_resource r;
        st = hum_resource_read(rel, &r);
        if (st == HUM_OK)
            st = sources_take(out, &r, "builtin");
    }
    strlist_free(&names);
    return st;
}

static hum_status collect_site(const hum_runtime *rt, source_list *out)
{
    hum_status st = HUM_OK;
    for (int32_t i = 0; st == HUM_OK && i < rt->config.policy_path_count; i++) {
        const char *path = rt->config.policy_paths[i];
        struct stat sb;
        if (stat(path, &sb) != 0)
            return hum_fail(HUM_ERR_IO, "policy path %s (policy_paths in %s): %s", path, rt->config_path,
                            strerror(errno));
        strlist files = {0};
        if (S_ISDIR(sb.st_mode)) {
            strlist names = {0};
            st = list_dir(path, &names);
            for (int32_t j = 0; st == HUM_OK && j < names.count; j++)
                st = strlist_take(&files, join_path(path, strlen(path), names.items[j]));
            strlist_free(&names);
        } else {
            st = strlist_take(&files, strdup(path));
        }
        for (int32_t j = 0; st == HUM_OK && j < files.count; j++) {
            hum_resource r;
            st = read_file(files.items[j], &r);
            if (st == HUM_OK)
                st = sources_take(out, &r, "site");
        }
        strlist_free(&files);
    }
    return st;
}

/* --- handing the layers to Lua ------------------------------------------------------------ */

static void push_sources(lua_State *L, const source_list *s)
{
    lua_createtable(L, s->count, 0);
    for (int32_t i = 0; i < s->count; i++) {
        lua_createtable(L, 0, 3);
        lua_pushstring(L, s->items[i].origin);
        lua_setfield(L, -2, "origin");
        lua_pushlstring(L, s->items[i].text, s->items[i].size);
        lua_setfield(L, -2, "text");
        lua_pushstring(L, s->items[i].layer);
        lua_setfield(L, -2, "layer");
        lua_rawseti(L, -2, i + 1);
    }
}

static void push_overrides(lua_State *L, const hum_config *c)
{
    lua_createtable(L, 0, c->override_count);
    for (int32_t i = 0; i < c->override_count; i++) {
        lua_pushstring(L, c->overrides[i].value);
        lua_setfield(L, -2, c->overrides[i].key);
    }
}

/* The pooled copy of `origin`, added to the pool when it is new; NULL when out of memory. */
static const char *intern_origin(hum_origin_pool *pool, const char *origin)
{
    for (int32_t i = 0; i < pool->count; i++)
        if (!strcmp(pool->items[i], origin))
            return pool->items[i];
    if (pool->count == pool->cap) {
        int32_t cap = pool->cap ? pool->cap * 2 : 16;
        char **grown = realloc(pool->items, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        pool->items = grown;
        pool->cap = cap;
    }
    char *copy = strdup(origin);
    if (copy)
        pool->items[pool->count++] = copy;
    return copy;
}

/* The origins a load will put in force, pooled before Lua swaps its policies so that nothing
 * after the swap can fail. Returns a malloc'd array of `s->count` pooled strings, or NULL. */
static const char **pooled_origins(hum_runtime *rt, const source_list *s)
{
    const char **items = calloc(s->count ? (size_t)s->count : 1, sizeof *items);
    for (int32_t i = 0; items && i < s->count; i++) {
        if (!(items[i] = intern_origin(&rt->origin_pool, s->items[i].origin))) {
            free(items);
            items = NULL;
        }
    }
    return items;
}

void hum_policies_release(hum_runtime *rt)
{
    for (int32_t i = 0; i < rt->retired_count; i++)
        hum_config_overrides_free(rt->retired_overrides[i].items, rt->retired_overrides[i].count);
    free(rt->retired_overrides);
    rt->retired_overrides = NULL;
    rt->retired_count = 0;
    free(rt->origins);
    for (int32_t i = 0; i < rt->origin_pool.count; i++)
        free(rt->origin_pool.items[i]);
    free(rt->origin_pool.items);
    rt->origins = NULL;
    rt->origin_count = 0;
    memset(&rt->origin_pool, 0, sizeof rt->origin_pool);
}

hum_status hum_policies_load_locked(hum_runtime *rt)
{
    hum_stamp_list stamps;
    hum_status st = collect_stamps(rt, &stamps);
    if (st != HUM_OK)
        return st;
    hum_stamp_list_free(&rt->stamps);
    rt->stamps = stamps;

    source_list sources = {0};
    const char **origins = NULL;
    st = collect_builtin(&sources);
    if (st == HUM_OK)
        st = collect_site(rt, &sources);
    if (st == HUM_OK && !(origins = pooled_origins(rt, &sources)))
        st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "out of memory");
    if (st == HUM_OK) {
        lua_State *L = rt->L;
        int top = lua_gettop(L);
        lua_getglobal(L, "require");
        lua_pushstring(L, "hum.policy");
        st = hum_lua_pcall(L, 1, 1);
        if (st == HUM_OK) {
            lua_getfield(L, -1, "load");
            push_sources(L, &sources);
            push_overrides(L, &rt->config);
            lua_createtable(L, 0, 2);
            lua_pushinteger(L, rt->config.policy_time_limit_ms);
            lua_setfield(L, -2, "time_ms");
            lua_pushinteger(L, rt->config.policy_memory_limit_mb);
            lua_setfield(L, -2, "memory_mb");
            st = hum_lua_pcall(L, 3, 0);
        }
        lua_settop(L, top);
    }
    if (st == HUM_OK) {
        free(rt->origins);
        rt->origins = origins;
        rt->origin_count = sources.count;
    } else {
        free(origins);
    }
    sources_free(&sources);
    if (st != HUM_OK)
        return hum_fail_context(st, "loading policies");
    hum_log(rt, HUM_LOG_DEBUG, "loaded %d policy file%s", rt->origin_count, rt->origin_count == 1 ? "" : "s");
    return HUM_OK;
}

/* Calls require("hum.policy")[fn] with the value at registry reference `arg` (LUA_NOREF: no
 * argument); with want_ref, returns a registry reference to its result in *ref. */
static hum_status policy_call(lua_State *L, const char *fn, int arg, int *ref)
{
    int top = lua_gettop(L);
    lua_getglobal(L, "require");
    lua_pushstring(L, "hum.policy");
    hum_status st = hum_lua_pcall(L, 1, 1);
    if (st == HUM_OK) {
        lua_getfield(L, -1, fn);
        if (arg != LUA_NOREF)
            lua_rawgeti(L, LUA_REGISTRYINDEX, arg);
        st = hum_lua_pcall(L, arg != LUA_NOREF ? 1 : 0, ref ? 1 : 0);
        if (st == HUM_OK && ref)
            *ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    lua_settop(L, top);
    return st;
}

/* Puts `next` in force as the runtime's overrides (under live_lock) and keeps the set it replaces
 * alive (retired_overrides). */
static hum_status swap_overrides(hum_runtime *rt, hum_override_set next)
{
    hum_override_set *grown = realloc(rt->retired_overrides, (size_t)(rt->retired_count + 1) * sizeof *grown);
    if (!grown)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "reloading the config's overrides: out of memory");
    rt->retired_overrides = grown;
    pthread_mutex_lock(&rt->live_lock);
    grown[rt->retired_count++] = (hum_override_set){rt->config.overrides, rt->config.override_count};
    rt->config.overrides = next.items;
    rt->config.override_count = next.count;
    pthread_mutex_unlock(&rt->live_lock);
    return HUM_OK;
}

/* Puts back the overrides the last swap_overrides replaced; the set it put in force takes their
 * place among the retired ones (another thread may hold its strings). */
static void restore_overrides(hum_runtime *rt)
{
    hum_override_set *prev = &rt->retired_overrides[rt->retired_count - 1];
    pthread_mutex_lock(&rt->live_lock);
    const hum_override_set undone = {rt->config.overrides, rt->config.override_count};
    rt->config.overrides = prev->items;
    rt->config.override_count = prev->count;
    *prev = undone;
    pthread_mutex_unlock(&rt->live_lock);
}

/* Re-reads the config file's overrides (only they: the other keys hold for the runtime's life)
 * and puts them in force when they changed; *swapped says whether they did. */
static hum_status reread_overrides(hum_runtime *rt, int *swapped)
{
    *swapped = 0;
    if (!rt->config_path)
        return HUM_OK;
    hum_config fresh;
    hum_status st = hum_config_load(rt->config_path, &fresh);
    if (st != HUM_OK)
        return st;
    if (!hum_config_overrides_equal(&fresh, &rt->config)) {
        st = swap_overrides(rt, (hum_override_set){fresh.overrides, fresh.override_count});
        if (st == HUM_OK) {
            fresh.overrides = NULL;
            fresh.override_count = 0;
            *swapped = 1;
            hum_log(rt, HUM_LOG_INFO, "reload: the overrides of %s changed", rt->config_path);
        }
    }
    hum_config_free(&fresh);
    return st;
}

hum_status hum_policies_reload_locked(hum_runtime *rt)
{
    int saved = LUA_NOREF;
    /* the origins in force, to put back (their strings are pooled: only the array is ours) */
    const int32_t before_count = rt->origin_count;
    const char **before = malloc((before_count ? (size_t)before_count : 1) * sizeof *before);
    if (!before)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "reloading policies: out of memory");
    if (before_count)
        memcpy(before, rt->origins, (size_t)before_count * sizeof *before);
    pthread_mutex_lock(&rt->live_lock);
    hum_status (*reload_layers)(hum_runtime *) = rt->reload_layers;
    pthread_mutex_unlock(&rt->live_lock);
    int swapped = 0;
    hum_status st = policy_call(rt->L, "current", LUA_NOREF, &saved);
    if (st == HUM_OK)
        st = reread_overrides(rt, &swapped);
    const int loaded = st == HUM_OK && (st = hum_policies_load_locked(rt)) == HUM_OK;
    if (st != HUM_OK && swapped) /* the overrides go back with the policies */
        restore_overrides(rt);
    if (loaded && reload_layers && (st = reload_layers(rt)) != HUM_OK) {
        /* the layers keep their tables: the policies go back to the set they were planned with */
        char why[2048];
        snprintf(why, sizeof why, "%s", hum_last_error());
        if (swapped)
            restore_overrides(rt);
        policy_call(rt->L, "use", saved, NULL);
        free(rt->origins);
        rt->origins = before;
        rt->origin_count = before_count;
        before = NULL;
        hum_fail(st, "%s", why);
    }
    free(before);
    luaL_unref(rt->L, LUA_REGISTRYINDEX, saved);
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "reloading policies (nothing changed)");
}

void hum_policies_refresh_locked(hum_runtime *rt)
{
    if (!rt->config.hot_reload)
        return;
    hum_stamp_list now;
    if (collect_stamps(rt, &now) != HUM_OK) {
        hum_log(rt, HUM_LOG_WARN, "hot reload: %s", hum_last_error());
        return;
    }
    int same = stamps_equal(&now, &rt->stamps);
    hum_stamp_list_free(&now);
    if (same)
        return;
    if (hum_policies_reload_locked(rt) == HUM_OK)
        hum_log(rt, HUM_LOG_INFO, "hot reload: policy files changed; %d loaded", rt->origin_count);
    else
        hum_log(rt, HUM_LOG_WARN, "hot reload: %s", hum_last_error());
}

hum_status hum_runtime_policy_winner(hum_runtime *rt, const char *arch, char *name, size_t name_cap, char *origin,
                                     size_t origin_cap)
{
    if (!rt || !name || !origin || name_cap == 0 || origin_cap == 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_runtime_policy_winner: NULL argument or zero capacity");
    if (!arch && rt->device_status != HUM_OK)
        return hum_fail(rt->device_status, "%s", rt->device_error);
    int rc = pthread_mutex_lock(&rt->lua_lock);
    if (rc != 0)
        return hum_fail(HUM_ERR_INTERNAL, "finding the policy in force: cannot take the Lua lock: %s", strerror(rc));
    lua_State *L = rt->L;
    int top = lua_gettop(L);
    lua_getglobal(L, "require");
    lua_pushstring(L, "hum.policy");
    hum_status st = hum_lua_pcall(L, 1, 1);
    if (st == HUM_OK) {
        lua_getfield(L, -1, "winner_of");
        if (arch)
            lua_pushstring(L, arch);
        else
            lua_pushnil(L);
        st = hum_lua_pcall(L, 1, 2);
    }
    if (st == HUM_OK) {
        snprintf(name, name_cap, "%s", lua_isstring(L, -2) ? lua_tostring(L, -2) : "");
        snprintf(origin, origin_cap, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
    }
    lua_settop(L, top);
    pthread_mutex_unlock(&rt->lua_lock);
    return st;
}
