/* cli_runtime.h: runtime creation for the CLI commands, so that each reports a bad config or
 * policy file the same way. */
#include "cli_runtime.h"

#include <stdio.h>

int cli_runtime_open(const char *command, const char *config, const char *cache_dir, hum_runtime **rt)
{
    hum_runtime_options opts;
    hum_runtime_options_init(&opts);
    opts.config_path = config;
    opts.cache_dir = cache_dir;
    *rt = NULL;
    if (hum_runtime_create(&opts, rt) != HUM_OK) {
        fprintf(stderr, "hum %s: %s\n", command, hum_last_error());
        *rt = NULL;
        return 1;
    }
    return 0;
}
