/* The runtime a `hum <command>` works with, made one way by every command: from its --config,
 * with the failure reported in the command's words. */
#ifndef HUM_CLI_RUNTIME_H
#define HUM_CLI_RUNTIME_H

#include "hum/hum_tools.h"

/* Creates *rt from the deployment config `config` (NULL: $HUM_CONFIG or none) and the kernel
 * cache directory `cache_dir` (NULL: the config's, then the defaults). Returns 0, or 1 (the
 * exit code) after printing "hum <command>: <error>" on stderr, *rt then NULL. */
int cli_runtime_open(const char *command, const char *config, const char *cache_dir, hum_runtime **rt);

#endif
