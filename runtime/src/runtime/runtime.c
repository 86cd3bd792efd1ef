/* hum_runtime: the deployment config, the device (optional), the cache directory and the Lua
 * state with its policies. Everything here runs at create, prepare or reload time; the
 * forward path never touches it. */
#include "runtime.h"

#include "internal.h"
#include "lua_state.h"
#include "device.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void hum_runtime_options_init(hum_runtime_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->device_ordinal = -1;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* Finds the device; without a driver or a GPU the runtime stays usable for CPU-side work and
 * remembers why, for hum_runtime_device. An ordinal past the last GPU is the caller's error. */
static hum_status probe_device(hum_runtime *rt, const char *ordinal_source)
{
    int32_t count = 0;
    hum_status st = hum_device_count(&count);
    if (st == HUM_OK && rt->device_ordinal >= count)
        return hum_fail(HUM_ERR_INVALID_ARG, "device %d (%s) does not exist: this machine has %d GPU%s",
                        rt->device_ordinal, ordinal_source, count, count == 1 ? "" : "s");
    if (st == HUM_OK)
        st = hum_device_query(rt->device_ordinal, &rt->device);
    rt->device_status = st;
    if (st == HUM_OK)
        return HUM_OK;
    rt->device_error = strdup(hum_last_error());
    if (!rt->device_error)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "creating the runtime: out of memory");
    hum_log(rt, st == HUM_ERR_NO_DEVICE ? HUM_LOG_INFO : HUM_LOG_WARN, "running without a GPU: %s", rt->device_error);
    return HUM_OK;
}

/* One rule for every HUM_*_PATH: a directory that is not there is skipped with a warning. */
static void warn_missing_search_dirs(const hum_runtime *rt)
{
    for (int32_t i = 0; i < hum_search_path_count(); i++) {
        hum_search_path p;
        hum_search_path_get(i, &p);
        for (const char *d = p.dirs; d && *d;) {
            const size_t len = strcspn(d, ":");
            char dir[4096];
            struct stat sb;
            const int found = len && snprintf(dir, sizeof dir, "%.*s", (int)len, d) > 0 && stat(dir, &sb) == 0;
            if (len && (!found || !S_ISDIR(sb.st_mode)))
                hum_log(rt, HUM_LOG_WARN, "%s: %s: %s: skipped (the embedded %s and the other directories are used)",
                        p.variable, dir, found ? "not a directory" : strerror(errno), p.tree);
            d += len + (d[len] == ':');
        }
    }
}

static hum_status resolve_cache_dir(hum_runtime *rt, const hum_runtime_options *opts)
{
    const char *dir = opts->cache_dir ? opts->cache_dir : rt->config.cache_dir;
    char buf[4096];
    if (!dir) {
        hum_status st = hum_cache_default_dir(buf, sizeof buf);
        if (st != HUM_OK)
            return st;
        dir = buf;
    }
    rt->cache_dir = strdup(dir);
    return rt->cache_dir ? HUM_OK : hum_fail(HUM_ERR_OUT_OF_MEMORY, "creating the runtime: out of memory");
}

static hum_status init_lock(pthread_mutex_t *m)
{
    pthread_mutexattr_t attr;
    if (pthread_mutexattr_init(&attr) != 0)
        return hum_fail(HUM_ERR_INTERNAL, "creating the runtime: cannot initialise a mutex attribute");
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    int rc = pthread_mutex_init(m, &attr);
    pthread_mutexattr_destroy(&attr);
    return rc ? hum_fail(HUM_ERR_INTERNAL, "creating the runtime: pthread_mutex_init: %s", strerror(rc)) : HUM_OK;
}

static void *watch(void *arg)
{
    hum_runtime *rt = arg;
    pthread_mutex_lock(&rt->watch_lock);
    while (!rt->watch_stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += HUM_HOT_RELOAD_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&rt->watch_wake, &rt->watch_lock, &until);
        if (rt->watch_stop)
            break;
        pthread_mutex_unlock(&rt->watch_lock);
        pthread_mutex_lock(&rt->lua_lock);
        hum_policies_refresh_locked(rt);
        pthread_mutex_unlock(&rt->lua_lock);
        pthread_mutex_lock(&rt->watch_lock);
    }
    pthread_mutex_unlock(&rt->watch_lock);
    return NULL;
}

static hum_status start_watch(hum_runtime *rt)
{
    pthread_condattr_t attr;
    int rc = pthread_condattr_init(&attr);
    if (rc == 0) {
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        rc = pthread_cond_init(&rt->watch_wake, &attr);
        pthread_condattr_destroy(&attr);
    }
    if (rc == 0 && (rc = pthread_mutex_init(&rt->watch_lock, NULL)) != 0)
        pthread_cond_destroy(&rt->watch_wake);
    if (rc == 0 && (rc = pthread_create(&rt->watcher, NULL, watch, rt)) != 0) {
        pthread_cond_destroy(&rt->watch_wake);
        pthread_mutex_destroy(&rt->watch_lock);
    }
    if (rc != 0)
        return hum_fail(HUM_ERR_INTERNAL, "creating the runtime: the hot-reload thread: %s", strerror(rc));
    rt->watching = 1;
    return HUM_OK;
}

static void stop_watch(hum_runtime *rt)
{
    if (!rt->watching)
        return;
    pthread_mutex_lock(&rt->watch_lock);
    rt->watch_stop = 1;
    pthread_cond_signal(&rt->watch_wake);
    pthread_mutex_unlock(&rt->watch_lock);
    pthread_join(rt->watcher, NULL);
    pthread_cond_destroy(&rt->watch_wake);
    pthread_mutex_destroy(&rt->watch_lock);
    rt->watching = 0;
}

/* Frees what create has built so far; fields not yet built are zero. */
static void release(hum_runtime *rt, int lock_ready)
{
    stop_watch(rt);
    hum_lua_state_close(rt->L);
    if (lock_ready) {
        pthread_mutex_destroy(&rt->lua_lock);
        pthread_mutex_destroy(&rt->live_lock);
    }
    hum_policies_release(rt);
    hum_stamp_list_free(&rt->stamps);
    hum_config_free(&rt->config);
    free(rt->config_path);
    free(rt->cache_dir);
    free(rt->device_error);
    free(rt);
}

hum_status hum_runtime_create(const hum_runtime_options *opts, hum_runtime **out)
{
    if (!out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_runtime_create: out is NULL");
    *out = NULL;
    hum_runtime_options defaults;
    if (!opts) {
        hum_runtime_options_init(&defaults);
        opts = &defaults;
    }
    if (opts->device_ordinal < -1)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "hum_runtime_create: device_ordinal %d is invalid (expected -1 for the config's "
                        "device, or an ordinal >= 0)",
                        opts->device_ordinal);

    hum_runtime *rt = calloc(1, sizeof *rt);
    if (!rt)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_runtime_create: out of memory");
    hum_config_init(&rt->config);

    const char *config_path = opts->config_path;
    const char *env_config = getenv("HUM_CONFIG");
    if (!config_path && env_config && *env_config)
        config_path = env_config;
    hum_status st = HUM_OK;
    if (config_path) {
        st = hum_config_load(config_path, &rt->config);
        if (st == HUM_OK && !(rt->config_path = dup_or_null(config_path)))
            st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_runtime_create: out of memory");
        if (st != HUM_OK) {
            release(rt, 0);
            return st;
        }
    }

    const char *ordinal_source = "from the options";
    rt->device_ordinal = opts->device_ordinal;
    if (rt->device_ordinal < 0) {
        rt->device_ordinal = rt->config.device >= 0 ? rt->config.device : 0;
        ordinal_source = rt->config.device >= 0 ? "the config's 'device'" : "the default";
    }
    warn_missing_search_dirs(rt);
    st = resolve_cache_dir(rt, opts);
    if (st == HUM_OK)
        st = probe_device(rt, ordinal_source);
    if (st != HUM_OK) {
        release(rt, 0);
        return st;
    }
    st = init_lock(&rt->lua_lock);
    if (st == HUM_OK && (st = init_lock(&rt->live_lock)) != HUM_OK)
        pthread_mutex_destroy(&rt->lua_lock);
    if (st != HUM_OK) {
        release(rt, 0);
        return st;
    }
    st = hum_lua_state_open(rt, &rt->L);
    if (st == HUM_OK) {
        pthread_mutex_lock(&rt->lua_lock);
        st = hum_policies_load_locked(rt);
        pthread_mutex_unlock(&rt->lua_lock);
    }
    if (st == HUM_OK && rt->config.hot_reload)
        st = start_watch(rt);
    if (st != HUM_OK) {
        release(rt, 1);
        return st;
    }
    hum_log(rt, HUM_LOG_INFO, "runtime ready: %d policy file%s, cache %s", rt->origin_count,
            rt->origin_count == 1 ? "" : "s", rt->cache_dir);
    *out = rt;
    return HUM_OK;
}

void hum_runtime_destroy(hum_runtime *rt)
{
    if (rt)
        release(rt, 1);
}

hum_status hum_runtime_device(const hum_runtime *rt, hum_device_info *out)
{
    if (!rt || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_runtime_device: runtime and out must not be NULL");
    if (rt->device_status != HUM_OK)
        return hum_fail(rt->device_status, "%s", rt->device_error);
    *out = rt->device;
    return HUM_OK;
}

const char *hum_runtime_cache_dir(const hum_runtime *rt) { return rt ? rt->cache_dir : NULL; }

const char *hum_runtime_config_path(const hum_runtime *rt) { return rt ? rt->config_path : NULL; }

hum_status hum_runtime_reload_policies(hum_runtime *rt)
{
    if (!rt)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_runtime_reload_policies: runtime is NULL");
    int rc = pthread_mutex_lock(&rt->lua_lock);
    if (rc != 0)
        return hum_fail(HUM_ERR_INTERNAL,
                        "hum_runtime_reload_policies: cannot take the Lua lock (%s); it must not be "
                        "called from policy or layer Lua code",
                        strerror(rc));
    hum_status st = hum_policies_reload_locked(rt);
    pthread_mutex_unlock(&rt->lua_lock);
    return st;
}

/* The number of policy files in force and the pooled origin of file i (NULL when out of
 * range), read under the Lua lock (a reload on another thread swaps the list). From Lua code on
 * this runtime the calling thread already holds the lock (EDEADLK). */
static const char *origin_in_force(const hum_runtime *rt, int32_t i, int32_t *count)
{
    pthread_mutex_t *lock = (pthread_mutex_t *)&rt->lua_lock; /* internal state, not the runtime's value */
    int rc = pthread_mutex_lock(lock);
    *count = rt->origin_count;
    const char *origin = i >= 0 && i < rt->origin_count ? rt->origins[i] : NULL;
    if (rc == 0)
        pthread_mutex_unlock(lock);
    return origin;
}

int32_t hum_runtime_policy_count(const hum_runtime *rt)
{
    int32_t count = 0;
    if (rt)
        origin_in_force(rt, -1, &count);
    return count;
}

const char *hum_runtime_policy_origin(const hum_runtime *rt, int32_t i)
{
    int32_t count;
    return rt ? origin_in_force(rt, i, &count) : NULL;
}

/* The overrides change under live_lock (a reload re-reads them); their strings outlive it. */
const char *hum_runtime_override(const hum_runtime *rt, const char *key)
{
    if (!rt)
        return NULL;
    pthread_mutex_t *lock = (pthread_mutex_t *)&rt->live_lock;
    pthread_mutex_lock(lock);
    const char *v = hum_config_override_value(&rt->config, key);
    pthread_mutex_unlock(lock);
    return v;
}

int32_t hum_runtime_override_count(const hum_runtime *rt)
{
    if (!rt)
        return 0;
    pthread_mutex_t *lock = (pthread_mutex_t *)&rt->live_lock;
    pthread_mutex_lock(lock);
    const int32_t n = rt->config.override_count;
    pthread_mutex_unlock(lock);
    return n;
}

const char *hum_runtime_override_key(const hum_runtime *rt, int32_t i)
{
    if (!rt)
        return NULL;
    pthread_mutex_t *lock = (pthread_mutex_t *)&rt->live_lock;
    pthread_mutex_lock(lock);
    const char *k = i >= 0 && i < rt->config.override_count ? rt->config.overrides[i].key : NULL;
    pthread_mutex_unlock(lock);
    return k;
}

int32_t hum_runtime_hot_reload(const hum_runtime *rt) { return rt ? rt->config.hot_reload : 0; }

const char *hum_runtime_log_level(const hum_runtime *rt)
{
    return hum_log_level_name(rt ? rt->config.log_level : HUM_LOG_WARN);
}
