/* The option parser of every `hum <command>` (cli_args.h). One implementation, so that every
 * command treats --help, a missing value and an unknown argument alike. */
#include "cli_args.h"

#include "hum/hum_tools.h"

#include <stdarg.h>
#include <string.h>

/* The option `arg` names: "--layer" for both "--layer" and "--layer=SPEC". */
static const cli_option *find(const cli_option *options, const char *arg)
{
    const size_t len = strcspn(arg, "=");
    for (; options->name; options++)
        if (strlen(options->name) == len && !strncmp(options->name, arg, len))
            return options;
    return NULL;
}

int cli_usage_error(const cli_args *a, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    fprintf(stderr, "%s: ", a->command);
    vfprintf(stderr, format, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    a->usage(stderr);
    return 2;
}

int cli_args_parse(const cli_args *a, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            a->usage(stdout);
            return 1;
        }
        if (arg[0] != '-' && a->positional) {
            if (*a->positional)
                return cli_usage_error(a, "one %s only ('%s' and '%s')", a->positional_what, *a->positional, arg);
            *a->positional = arg;
            continue;
        }
        const cli_option *o = find(a->options, arg);
        if (!o)
            return cli_usage_error(a, "unknown argument '%s'", arg);
        const char *inline_value = strchr(arg, '=');
        if (o->flag) {
            if (inline_value)
                return cli_usage_error(a, "%s takes no value ('%s')", o->name, arg);
            *o->flag = 1;
            continue;
        }
        if (inline_value) {
            *o->value = inline_value + 1;
            continue;
        }
        /* The next argument is the value even when it starts with '-' (a negative number, a
         * file named -x); only its absence is an error. */
        if (i + 1 >= argc)
            return cli_usage_error(a, "%s needs a value", arg);
        *o->value = argv[++i];
    }
    return 0;
}

int cli_arch_check(const cli_args *a, const char *arch)
{
    if (!arch)
        return 0;
    hum_status st = hum_arch_check(arch);
    if (st == HUM_OK)
        return 0;
    if (st == HUM_ERR_INVALID_ARG)
        return cli_usage_error(a, "%s", hum_last_error());
    fprintf(stderr, "%s: %s\n", a->command, hum_last_error());
    return 1;
}
