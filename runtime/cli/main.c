/* The hum command-line tool: one subcommand per file (cmd_<name>.c), dispatched here. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int hum_cmd_info(const char *config, int argc, char **argv);
int hum_cmd_demo(const char *config, int argc, char **argv);
int hum_cmd_compile(const char *config, int argc, char **argv);
int hum_cmd_cache(const char *config, int argc, char **argv);
int hum_cmd_inspect(const char *config, int argc, char **argv);
int hum_cmd_run(const char *config, int argc, char **argv);
int hum_cmd_bench(const char *config, int argc, char **argv);
int hum_cmd_tune(const char *config, int argc, char **argv);
static const hum_cli_command commands[] = {
    /* HUM-CLI-COMMANDS (one line per subcommand, kept in the order `hum --help` prints) */
    {"info", "version, driver and device, NVRTC, cache dir, config and policies in force", hum_cmd_info},
    {"demo", "W4A16 GPTQ layers of Llama-3-8B shapes: build, load, run, check and time against cuBLAS", hum_cmd_demo},
    {"compile", "compile a kernel through the kernel cache: prints cache hit or miss and the time", hum_cmd_compile},
    {"cache", "ls: list the kernel cache; clear: empty it", hum_cmd_cache},
    {"inspect", "list the quantized layers of a checkpoint; --dequant writes one layer dequantized", hum_cmd_inspect},
    {"run", "run one layer of a checkpoint on the GPU; --check compares with the float64 reference", hum_cmd_run},
    {"bench", "time a layer (--layer SPEC) against cuBLAS over an M sweep; writes bench/results JSON", hum_cmd_bench},
    {"tune", "time candidate tunings of a layer class per M range; write the fastest as a policy file", hum_cmd_tune},
};

enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

static void usage(FILE *f)
{
    fprintf(f, "usage: hum [--config FILE] <command> [options]\n"
               "       hum help [COMMAND] | hum --help | hum --version\n\ncommands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n`hum help <command>` or `hum <command> --help` describes a command.\n");
}

static const hum_cli_command *find_command(const char *name)
{
    for (size_t c = 0; c < COMMAND_COUNT; c++)
        if (strcmp(name, commands[c].name) == 0)
            return &commands[c];
    return NULL;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "hum: unknown command '%s'\n", name);
    usage(stderr);
    return 2;
}

/* `hum help [COMMAND]`: the overview, or the command's own --help text. */
static int help(int argc, char **argv)
{
    /* `hum help --help`: every command takes --help (README) */
    if (argc == 1 || (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))) {
        usage(stdout);
        return 0;
    }
    if (argc > 2) {
        fprintf(stderr, "hum help: one command at a time ('%s' and '%s')\n", argv[1], argv[2]);
        return 2;
    }
    const hum_cli_command *c = find_command(argv[1]);
    if (!c)
        return unknown_command(argv[1]);
    char help_option[] = "--help";
    char *args[] = {argv[1], help_option, NULL};
    return c->run(NULL, 2, args);
}

static int run(int argc, char **argv)
{
    const char *config = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            /* `hum --help CMD` as `hum help CMD` */
            if (i + 1 < argc)
                return help(argc - i, argv + i);
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            if (i + 1 < argc) {
                fprintf(stderr, "hum: --version takes no arguments ('%s')\n", argv[i + 1]);
                return 2;
            }
            printf("hum %s\n", hum_version());
            return 0;
        }
        if (strncmp(argv[i], "--config=", 9) == 0) {
            config = argv[i] + 9;
            continue;
        }
        if (strcmp(argv[i], "--config") == 0) {
            /* `hum --config` with nothing after it is a missing value, not an unknown option */
            if (i + 1 == argc) {
                fprintf(stderr, "hum: --config needs a FILE\n");
                usage(stderr);
                return 2;
            }
            config = argv[++i];
            continue;
        }
        fprintf(stderr, "hum: unknown option %s\n", argv[i]);
        usage(stderr);
        return 2;
    }
    if (i == argc) {
        /* say what is missing: a bare usage text after `hum --config FILE` reads like a crash */
        if (i > 1)
            fprintf(stderr, "hum: a command is required\n");
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[i], "help") == 0)
        return help(argc - i, argv + i);
    const hum_cli_command *c = find_command(argv[i]);
    return c ? c->run(config, argc - i, argv + i) : unknown_command(argv[i]);
}

int main(int argc, char **argv)
{
    /* Line by line also into a pipe (`hum demo | tee log`): a user watches long commands run. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* A write past the file-size limit (ulimit -f) then fails with EFBIG, and the writer removes
     * its temporary file and says so; SIGXFSZ's default would kill hum with the part on disk. */
    signal(SIGXFSZ, SIG_IGN);
    const int rc = run(argc, argv);
    /* Output redirected into a full disk or a closed descriptor is a failed command, not exit 0
     * over a truncated file. */
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    const int err = errno;
    fprintf(stderr, "hum: writing standard output failed%s%s\n", err ? ": " : "", err ? strerror(err) : "");
    return rc ? rc : 1;
}
