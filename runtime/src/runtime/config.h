/* The deployment config: a YAML file an operator writes (see docs/config.md and
 * examples/deploy.yaml). Parsed once by hum_runtime_create; every key is validated here so
 * that a typo is an error naming the file, line and key instead of a silently ignored
 * setting. Private to libhum. */
#ifndef HUM_CONFIG_H
#define HUM_CONFIG_H

#include "hum/hum.h"
#include "log.h"

#include <stddef.h>
#include <stdint.h>

typedef struct hum_config_override {
    char *key;   /* "<section>.<key>", e.g. "moe.activation" */
    char *value; /* canonical spelling, e.g. "e4m3" for "float8_e4m3fn" */
} hum_config_override;

typedef struct hum_config {
    int32_t device;     /* GPU ordinal; -1 when the file does not set it */
    char *cache_dir;    /* NULL when unset */
    char **policy_paths; /* files or directories of *.lua, in layering order */
    int32_t policy_path_count;
    hum_config_override *overrides;
    int32_t override_count;
    int32_t hot_reload; /* 0 or 1 */
    hum_log_level log_level;
    int32_t policy_time_limit_ms;   /* 0 when unset: lua/hum/sandbox.lua's default */
    int32_t policy_memory_limit_mb; /* 0 when unset: lua/hum/sandbox.lua's default */
} hum_config;

/* The largest policy_time_limit_ms (one hour) and policy_memory_limit_mb (64 GiB) accepted. */
#define HUM_POLICY_TIME_LIMIT_MAX_MS 3600000
#define HUM_POLICY_MEMORY_LIMIT_MAX_MB 65536

/* Defaults: nothing set, hot_reload off, log level warn. */
void hum_config_init(hum_config *c);

/* Reads and validates the YAML file at `path`. Relative paths inside it (cache_dir,
 * policy_paths) are resolved against the file's directory, and a leading "~/" against $HOME.
 * HUM_ERR_IO when the file cannot be read; HUM_ERR_CONFIG with "path:line: ..." on any bad
 * key, type or value. `out` is written only on success. */
hum_status hum_config_load(const char *path, hum_config *out);

/* Same, from text in memory; `name` is used in messages and `base_dir` resolves relative
 * paths (NULL: keep them as written). */
hum_status hum_config_parse(const char *text, size_t size, const char *name, const char *base_dir,
                            hum_config *out);

void hum_config_free(hum_config *c);

/* Frees an overrides array and its strings (hum_config_free's part for them). */
void hum_config_overrides_free(hum_config_override *items, int32_t count);
/* 1 when a and b hold the same overrides in the same order. */
int hum_config_overrides_equal(const hum_config *a, const hum_config *b);

/* The value of an override ("moe.activation"), or NULL when the config does not set it. */
const char *hum_config_override_value(const hum_config *c, const char *key);

#endif
