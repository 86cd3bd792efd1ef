/* The hum CLI run the way a user runs it, for the tests of its subcommands. */
#ifndef HUM_CLI_TEST_H
#define HUM_CLI_TEST_H

#include <stddef.h>

/* What the last cli_hum() printed, stdout and stderr together (truncated to its size). */
extern char cli_output[32768];

/* Runs `<build>/runtime/hum <args>` through the shell; returns its exit code, -1 if it could
 * not run or died on a signal. */
int cli_hum(const char *args);

/* cli_hum through a pipe that times its lines: *first_line is when the first line arrived and
 * *total when the command ended, in seconds from its start. */
int cli_hum_timed(const char *args, double *first_line, double *total);

/* How many times `text` (not empty) occurs in cli_output, without overlap: e.g. the ": ok" lines of
 * a hum run --check. */
int cli_count(const char *text);

/* Fails the test (RT_CHECK) unless cli_output contains `text`; `what` names the step. */
void cli_has(const char *what, const char *text);

/* A GPTQ 4-bit group-128 checkpoint in `dir` of one [N = 64, K = 256] layer named `layer`, from
 * fixed random weights. */
void cli_write_checkpoint(const char *dir, const char *layer);

/* A file's bytes (NUL-terminated, malloc'd; NULL if unreadable) and their count. */
char *cli_slurp(const char *path, size_t *size);

#endif
