/* Shared pieces of the hum CLI. Each subcommand lives in cmd_<name>.c and is listed in main.c. */
#ifndef HUM_CLI_H
#define HUM_CLI_H

#include "hum/hum_tools.h"

typedef struct hum_cli_command {
    const char *name;
    const char *summary;
    /* config: the global --config FILE or NULL (a subcommand also accepts --config itself);
     * argv[0] is the subcommand name. Returns the process exit code. */
    int (*run)(const char *config, int argc, char **argv);
} hum_cli_command;

#endif
