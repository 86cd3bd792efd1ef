/* `hum cache ls` and `hum cache clear`: the kernel cache of the runtime's cache directory. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_args.h"
#include "cli_runtime.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: hum cache [--config FILE] ls|clear\n\n"
               "  ls     one line per cached kernel: key, kernel name, arch, cubin bytes, date (UTC)\n"
               "  clear  removes every cached kernel, NVRTC log and lock file hum wrote there\n"
               "  --config FILE  deployment config (its cache_dir is the directory used)\n"
               "The directory: the config's cache_dir, else $HUM_CACHE_DIR, $XDG_CACHE_HOME/hum, ~/.cache/hum.\n");
}

static int list(const char *dir)
{
    hum_cache_entry *entries;
    int32_t count;
    if (hum_cache_list(dir, &entries, &count) != HUM_OK) {
        fprintf(stderr, "hum cache ls: %s\n", hum_last_error());
        return 1;
    }
    long long total = 0;
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
        total += e->file_bytes;
    }
    fflush(stdout); /* the entries, then the summary, also when both go to one pipe */
    fprintf(stderr, "%d cached kernel%s, %lld bytes, in %s\n", count, count == 1 ? "" : "s", total, dir);
    hum_cache_list_free(entries);
    return 0;
}

int hum_cmd_cache(const char *config, int argc, char **argv)
{
    const char *action = NULL;
    const cli_option options[] = {CLI_VALUE("--config", &config), CLI_END};
    const cli_args args = {.command = "hum cache", .usage = usage, .options = options, .positional = &action,
                           .positional_what = "action"};
    int parsed = cli_args_parse(&args, argc, argv);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    if (!action)
        return cli_usage_error(&args, "an action is required: ls or clear");
    if (strcmp(action, "ls") != 0 && strcmp(action, "clear") != 0)
        return cli_usage_error(&args, "unknown action '%s' (expected ls or clear)", action);
    hum_runtime *rt;
    if (cli_runtime_open("cache", config, NULL, &rt) != 0)
        return 1;
    const char *dir = hum_runtime_cache_dir(rt);
    int rc = 0;
    if (!strcmp(action, "ls")) {
        rc = list(dir);
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
