/* `hum tune` on a machine without a GPU: it checks its arguments (usage errors exit 2), refuses
 * to go on when the output file exists or the --candidates file is missing, a directory or a
 * device (before any GPU work; exit 1), and says there is no GPU (exit 1) without writing
 * anything. The tuning itself is tested on the CPU through its Lua side
 * (tests/lua/tune_spec.lua) and on a GPU by running it (docs/cli.md). */
#define _POSIX_C_SOURCE 200809L /* setenv, mkfifo */
#include "cli_test.h"
#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
    char dir[4096], args[8400], out[4200];
    rt_tmpdir("cli-tune", dir, sizeof dir);
    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    unsetenv("HUM_CONFIG");
    unsetenv("HUM_POLICY_PATH");
    const char *spec = "n=256,k=256,w=uint4,a=float16,group=128";

    RT_CHECK(cli_hum("tune") == 2, "no --layer:\n%s", cli_output);
    cli_has("no --layer", "--layer SPEC is required");
    snprintf(args, sizeof args, "tune --layer n=0,k=1");
    RT_CHECK(cli_hum(args) == 2, "bad SPEC:\n%s", cli_output);
    snprintf(args, sizeof args, "tune --layer %s --budget soon", spec);
    RT_CHECK(cli_hum(args) == 2, "bad budget:\n%s", cli_output);
    cli_has("bad budget", "--budget 'soon'");
    snprintf(args, sizeof args, "tune --layer %s --m 0,16", spec);
    RT_CHECK(cli_hum(args) == 2, "bad --m:\n%s", cli_output);
    snprintf(args, sizeof args, "tune --layer %s --reps 0", spec);
    RT_CHECK(cli_hum(args) == 2, "bad --reps:\n%s", cli_output);

    const char *existing = rt_write(dir, "kept.lua", "-- mine\n");
    snprintf(out, sizeof out, "%s", existing);
    snprintf(args, sizeof args, "tune --layer %s --out %s", spec, out);
    RT_CHECK(cli_hum(args) == 1, "existing --out:\n%s", cli_output);
    cli_has("existing --out", "exists: refusing to replace it (--force replaces it)");

    snprintf(out, sizeof out, "%s/new.lua", dir);
    snprintf(args, sizeof args, "tune --layer %s --out %s --candidates %s/none.lua", spec, out, dir);
    RT_CHECK(cli_hum(args) == 1, "missing --candidates:\n%s", cli_output);
    cli_has("missing --candidates", "--candidates ");
    cli_has("missing --candidates", "none.lua: No such file or directory (expected a Lua file)");
    rt_write(dir, "cands.d/x.lua", "return nil\n");
    snprintf(args, sizeof args, "tune --layer %s --out %s --candidates %s/cands.d", spec, out, dir);
    RT_CHECK(cli_hum(args) == 1, "a directory as --candidates:\n%s", cli_output);
    cli_has("a directory as --candidates", "cands.d: is a directory (expected a Lua file)");
    /* a device is refused, not streamed into memory */
    snprintf(args, sizeof args, "tune --layer %s --out %s --candidates /dev/zero", spec, out);
    RT_CHECK(cli_hum(args) == 1, "a device as --candidates:\n%s", cli_output);
    cli_has("a device as --candidates", "/dev/zero: not a regular file or a pipe (expected a Lua file)");
    /* a pipe is read (<(...)): a FIFO nobody writes reads as empty instead of waiting, and the
     * run goes on to look for the GPU */
    char fifo[4200];
    snprintf(fifo, sizeof fifo, "%s/cands.fifo", dir);
    RT_CHECK(mkfifo(fifo, 0644) == 0, "mkfifo %s", fifo);
    alarm(60); /* an open that waits for a writer fails the test instead of hanging it */
    snprintf(args, sizeof args, "tune --layer %s --out %s --candidates %s/cands.fifo", spec, out, dir);
    RT_CHECK(cli_hum(args) == 1, "a FIFO as --candidates:\n%s", cli_output);
    cli_has("a FIFO as --candidates", "hum tune: no GPU to tune on: ");
    alarm(0);
    snprintf(args, sizeof args, "tune --layer %s --out %s --force --budget 30", spec, out);
    RT_CHECK(cli_hum(args) == 1, "no GPU:\n%s", cli_output);
    cli_has("no GPU", "hum tune: no GPU to tune on: ");
    RT_CHECK(access(out, F_OK) != 0, "nothing written without a GPU");
    RT_CHECK(cli_hum("tune --help") == 0, "--help:\n%s", cli_output);
    cli_has("--help", "usage: hum tune --layer SPEC");
    rt_rmtree(dir);
    return rt_test_result("test_cli_tune");
}
