/* See cli_test.h. */
#define _POSIX_C_SOURCE 200809L /* popen */
#include "cli_test.h"

#include "rt_test.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

char cli_output[32768];

int cli_hum(const char *args)
{
    char command[16384];
    snprintf(command, sizeof command, "%s/runtime/hum %s 2>&1", HUM_BINARY_DIR, args);
    FILE *p = popen(command, "r");
    if (!p) {
        snprintf(cli_output, sizeof cli_output, "cannot run %s", command);
        return -1;
    }
    size_t n = fread(cli_output, 1, sizeof cli_output - 1, p);
    cli_output[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void cli_has(const char *what, const char *text)
{
    RT_CHECK(strstr(cli_output, text) != NULL, "%s: output lacks \"%s\":\n%s", what, text, cli_output);
}
