/* The hum_runtime object, seen from inside libhum. Public functions are in hum.h (section
 * runtime); this header is for the runtime's own files and for other C code that needs the
 * log or the Lua lock. */
#ifndef HUM_RUNTIME_H
#define HUM_RUNTIME_H

#include "config.h"
#include "hazard.h"
#include "hum/hum.h"
#include "internal.h"

#include <lua.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

/* What a policy file or directory looked like at the last load, for hot reload. */
typedef struct hum_file_stamp {
    char *path;
    int exists;
    dev_t dev;
    ino_t ino;
    off_t size;
    int64_t mtime_ns;
} hum_file_stamp;

typedef struct hum_stamp_list {
    hum_file_stamp *items;
    int32_t count;
} hum_stamp_list;

/* One copy of every distinct policy origin ("embedded:policies/sm90.lua" or a path) the
 * runtime has loaded, kept until it is destroyed: a string hum_runtime_policy_origin returned
 * never dangles, whichever thread (or hot reload) loads next, and reloading the same files
 * adds nothing. */
typedef struct hum_origin_pool {
    char **items;
    int32_t count, cap;
} hum_origin_pool;

/* Override sets a reload replaced: kept until the runtime is destroyed, since
 * hum_runtime_override may have handed their strings to another thread. */
typedef struct hum_override_set {
    hum_config_override *items;
    int32_t count;
} hum_override_set;

struct hum_runtime {
    /* the overrides (config.overrides, override_count) are re-read from the file by each policy
     * reload; they change under live_lock, and hum_runtime_override reads them under it */
    hum_config config;
    hum_override_set *retired_overrides;
    int32_t retired_count;
    char *config_path; /* NULL without a config */
    char *cache_dir;
    int32_t device_ordinal;
    hum_status device_status; /* HUM_OK when `device` is valid */
    hum_device_info device;
    char *device_error;       /* hum_last_error() of the failed probe, else NULL */

    pthread_mutex_t lua_lock; /* error-checking: a re-entrant hum_lua_call fails instead of hanging */
    lua_State *L;

    const char **origins;     /* the files of the policies in force, pooled (read under lua_lock) */
    int32_t origin_count;
    hum_origin_pool origin_pool;
    hum_stamp_list stamps;    /* files seen at the last load attempt, successful or not */

    /* What a policy reload reaches: the prepared layers and the hazard slots of every
     * workspace (hazard.h). Taken after lua_lock when both are held; never by a forward. */
    pthread_mutex_t live_lock;
    struct hum_layer *layers;
    hum_hazard_list hazards;
    /* gives every prepared layer its table under the reloaded policies (layer/layer_reload.c;
     * layer/layer.c sets it when it makes a layer, so that the runtime does not call into
     * layer/); NULL while no layer exists. Under live_lock. */
    hum_status (*reload_layers)(struct hum_runtime *rt);

    /* hot_reload: a thread that looks at the policy files every HUM_HOT_RELOAD_MS, so that a
     * change reaches prepared layers even when nothing enters Lua */
    int32_t watching;
    int32_t watch_stop;        /* under watch_lock */
    pthread_mutex_t watch_lock;
    pthread_cond_t watch_wake;
    pthread_t watcher;
};

enum { HUM_HOT_RELOAD_MS = 500 };

/* Writes "hum: <level>: <message>\n" to stderr when `level` is within the runtime's log level
 * (the config's log_level; warn when rt is NULL). */
#define hum_log(rt, level, ...) hum_log_message((rt) ? (rt)->config.log_level : HUM_LOG_WARN, level, __VA_ARGS__)

/* Loads every policy layer (built-in, site files from the config, overrides) into the Lua
 * state. Caller holds lua_lock. On failure the policies in force are unchanged. */
hum_status hum_policies_load_locked(hum_runtime *rt);

/* hum_runtime_reload_policies with lua_lock held: loads every policy layer, then gives every
 * prepared layer its new dispatch table (hum_layers_reload_locked); on any error the policies
 * and every table in force stay as they were. */
hum_status hum_policies_reload_locked(hum_runtime *rt);

/* Hot reload: when the config says hot_reload and a policy file or directory changed since
 * the last load attempt, reloads them (hum_policies_reload_locked); a failed reload is logged
 * and the old policies and tables stay. Caller holds lua_lock. Called on every entry into Lua
 * (hum_lua_call). */
void hum_policies_refresh_locked(hum_runtime *rt);

/* Frees the policy origins and their pool (runtime destruction). */
void hum_policies_release(hum_runtime *rt);

void hum_stamp_list_free(hum_stamp_list *l);

#endif
