/* `hum cache ls` and `hum cache clear`: the kernel cache of the runtime's cache directory. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_args.h"
#include "cli_runtime.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: hum cache [--config FILE] ls [--json] | clear\n\n"
               "  ls     one line per cached kernel: key, kernel name, arch, cubin bytes, date (UTC);\n"
               "         with --json one JSON object: dir, count, bytes and the entries\n"
               "  clear  removes every cached kernel, NVRTC log and lock file hum wrote there\n"
               "  --config FILE  deployment config (its cache_dir is the directory used)\n"
               "The directory: the config's cache_dir, else $HUM_CACHE_DIR, $XDG_CACHE_HOME/hum, ~/.cache/hum.\n");
}

/* The entries as one JSON object on stdout. */
static int list_json(const char *dir, const hum_cache_entry *entries, int32_t count, long long total)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "dir", dir);
    cJSON_AddNumberToObject(root, "count", count);
    cJSON_AddNumberToObject(root, "bytes", (double)total);
    cJSON *list = cJSON_AddArrayToObject(root, "entries");
    for (int32_t i = 0; i < count; i++) {
        const hum_cache_entry *e = &entries[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "key", e->key);
        cJSON_AddBoolToObject(o, "valid", e->valid);
        if (e->valid) {
            cJSON_AddStringToObject(o, "kernel", e->kernel_name);
            cJSON_AddStringToObject(o, "arch", e->arch);
            cJSON_AddNumberToObject(o, "cubin_bytes", (double)e->cubin_bytes);
        }
        cJSON_AddNumberToObject(o, "file_bytes", (double)e->file_bytes);
        cJSON_AddNumberToObject(o, "modified_unix", (double)e->modified_unix);
        cJSON_AddItemToArray(list, o);
    }
    char *text = cJSON_Print(root);
    if (text)
        printf("%s\n", text);
    else
        fprintf(stderr, "hum cache ls: out of memory\n");
    cJSON_free(text);
    cJSON_Delete(root);
    return text ? 0 : 1;
}

static int list(const char *dir, int json)
{
    hum_cache_entry *entries;
    int32_t count;
    if (hum_cache_list(dir, &entries, &count) != HUM_OK) {
        fprintf(stderr, "hum cache ls: %s\n", hum_last_error());
        return 1;
    }
    long long total = 0;
    for (int32_t i = 0; i < count; i++)
        total += entries[i].file_bytes;
    if (json) {
        int rc = list_json(dir, entries, count, total);
        hum_cache_list_free(entries);
        return rc;
    }
    for (int32_t i = 0; i < count; i++) {
        const hum_cache_entry *e = &entries[i];
        char date[32] = "?";
        time_t t = (time_t)e->modified_unix;
        struct tm tm;
        if (gmtime_r(&t, &tm))
            strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
        if (e->valid)
            printf("%s  %-24s %-8s %9lld  %s\n", e->key, e->kernel_name, e->arch, (long long)e->cubin_bytes, date);
        else
            printf("%s  %-24s %-8s %9s  %s\n", e->key, "(corrupt: recompiled on next use)", "-", "-", date);
    }
    fflush(stdout); /* the entries, then the summary, also when both go to one pipe */
    fprintf(stderr, "%d cached kernel%s, %lld bytes, in %s\n", count, count == 1 ? "" : "s", total, dir);
    hum_cache_list_free(entries);
    return 0;
}

int hum_cmd_cache(const char *config, int argc, char **argv)
{
    const char *action = NULL;
    int json = 0;
    const cli_option options[] = {CLI_VALUE("--config", &config), CLI_FLAG("--json", &json), CLI_END};
    const cli_args args = {.command = "hum cache", .usage = usage, .options = options, .positional = &action,
                           .positional_what = "action"};
    int parsed = cli_args_parse(&args, argc, argv);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    if (!action)
        return cli_usage_error(&args, "an action is required: ls or clear");
    if (strcmp(action, "ls") != 0 && strcmp(action, "clear") != 0)
        return cli_usage_error(&args, "unknown action '%s' (expected ls or clear)", action);
    if (json && strcmp(action, "ls") != 0)
        return cli_usage_error(&args, "--json goes with ls");
    hum_runtime *rt;
    if (cli_runtime_open("cache", config, NULL, &rt) != 0)
        return 1;
    const char *dir = hum_runtime_cache_dir(rt);
    int rc = 0;
    if (!strcmp(action, "ls")) {
        rc = list(dir, json);
    } else {
        int32_t removed = 0;
        if (hum_cache_clear(dir, &removed) != HUM_OK) {
            fprintf(stderr, "hum cache clear: %s\n", hum_last_error());
            rc = 1;
        } else {
            printf("removed %d cached kernel%s from %s\n", removed, removed == 1 ? "" : "s", dir);
        }
    }
    hum_runtime_destroy(rt);
    return rc;
}
