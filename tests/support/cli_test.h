/* The hum CLI run the way a user runs it, for the tests of its subcommands. */
#ifndef HUM_CLI_TEST_H
#define HUM_CLI_TEST_H

/* What the last cli_hum() printed, stdout and stderr together (truncated to its size). */
extern char cli_output[32768];

/* Runs `<build>/runtime/hum <args>` through the shell; returns its exit code, -1 if it could
 * not run or died on a signal. */
int cli_hum(const char *args);

/* Fails the test (RT_CHECK) unless cli_output contains `text`; `what` names the step. */
void cli_has(const char *what, const char *text);

#endif
