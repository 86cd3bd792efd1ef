/* The option parser every `hum <command>` shares: a table of `--name VALUE` (or `--name=VALUE`)
 * options and `--name` flags, --help/-h, at most one positional argument, and one wording for
 * usage errors ("hum <command>: ..." on stderr, then the command's usage text). */
#ifndef HUM_CLI_ARGS_H
#define HUM_CLI_ARGS_H

#include <stdio.h>

typedef struct cli_option {
    const char *name;   /* "--layer" */
    const char **value; /* an option that takes a VALUE stores it here (the last one given wins) */
    int *flag;          /* an option without a value sets this to 1; exactly one of value, flag */
} cli_option;

/* Table entries; designated, so no field is left to -Wmissing-field-initializers. */
#define CLI_VALUE(option, slot) {.name = (option), .value = (slot)}
#define CLI_FLAG(option, set) {.name = (option), .flag = (set)}
#define CLI_END {.name = NULL}

typedef struct cli_args {
    const char *command;       /* "hum bench": the prefix of every message */
    void (*usage)(FILE *f);    /* the command's usage text */
    const cli_option *options; /* ends with an entry whose name is NULL */
    /* Where an argument not starting with '-' goes; NULL: the command takes none, so it is an
     * unknown argument. A second one is a usage error naming both as `positional_what`. */
    const char **positional;
    const char *positional_what; /* "checkpoint" */
} cli_args;

/* Parses argv[1..argc-1] (argv[0] is the command name). Returns 0 when parsed, 1 when --help or
 * -h printed the usage text on stdout, 2 on a usage error (reported on stderr). */
int cli_args_parse(const cli_args *a, int argc, char **argv);

/* Reports a usage error found after parsing (a required option missing, options that exclude
 * each other): "<command>: <message>" and the usage text on stderr. Returns 2, the exit code. */
int cli_usage_error(const cli_args *a, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Checks an --arch value before anything is planned for it: 0 when NVRTC takes it (or arch is
 * NULL); 2, a usage error (reported as by cli_usage_error), when NVRTC names other architectures;
 * 1 when the linked NVRTC gives no usable list of them (hum_arch_check's HUM_ERR_COMPILE), the
 * installation's failure and not the user's ("<command>: <error>" on stderr). The value is the
 * exit code. */
int cli_arch_check(const cli_args *a, const char *arch);

#endif
