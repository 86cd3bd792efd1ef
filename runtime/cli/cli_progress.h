/* Progress of long steps (checkpoint build, kernel compiles, CPU references), so that a user
 * watching `hum demo | tee log` sees what runs: a line when a step starts and, while it runs
 * past a second, a line at 1, 2, 4, 8, ... seconds. Lines go to stdout (line-buffered, main.c). */
#ifndef HUM_CLI_PROGRESS_H
#define HUM_CLI_PROGRESS_H

typedef struct cli_step cli_step;

/* Prints "<what> ..." and starts the ticker. NULL (and no ticker, the step still runs) when a
 * thread cannot be had. */
cli_step *cli_step_begin(const char *what);

/* Stops the ticker and frees the step; the caller prints the result. NULL is ignored. */
void cli_step_end(cli_step *step);

#endif
