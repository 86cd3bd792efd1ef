/* `hum compile --layer` with an attacking policy file on HUM_POLICY_PATH, as issue 13 found it:
 * os.exit(0) in tunings used to end the command with status 0 and nothing printed, and a loop
 * in tunings hung it. Both must exit 1 naming the file, line and function, a loop within the
 * config's policy_time_limit_ms. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "cli_test.h"
#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char LAYER[] = "compile --arch sm_80 --layer n=256,k=256,w=uint4,a=float16,group=128";

/* A policy for every device whose tunings (line 3) runs `body`. */
static const char *attacker(const char *dir, const char *body)
{
    char text[512];
    snprintf(text, sizeof text,
             "return { name = 'attacker', applies = function() return true end,\n"
             "  tunings = function(device, layer, overrides)\n"
             "    %s\n"
             "  end }\n",
             body);
    return rt_write(dir, "zz_attacker.lua", text);
}

int main(void)
{
    char dir[4096];
    rt_tmpdir("cli-policy", dir, sizeof dir);
    char cache[4200], policies[4200];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    snprintf(policies, sizeof policies, "%s/policies", dir);
    setenv("HUM_CACHE_DIR", cache, 1);
    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    setenv("HUM_POLICY_PATH", policies, 1);
    unsetenv("HUM_CONFIG");

    char want[4400];
    const char *path = attacker(policies, "os.exit(0)");
    RT_CHECK(cli_hum(LAYER) == 1, "os.exit in tunings: exit 1, not the policy's 0:\n%s", cli_output);
    snprintf(want, sizeof want, "%s:3: os.exit is not available to policy files", path);
    cli_has("os.exit in tunings", want);
    cli_has("os.exit in tunings", "(in tunings(device, layer, overrides, compute))");

    const char *config = rt_write(dir, "deploy.yaml", "policy_time_limit_ms: 200\n");
    /* Bounded, so that a build without the limit fails this test (after some 30 s of the
     * interpreter: the JIT is off for policy code) instead of hanging it; the tight `while true do
     * end` is test_policy_sandbox's. */
    path = attacker(policies, "local n = 0 for i = 1, 5e9 do n = n + 1 end");
    char args[8400];
    snprintf(args, sizeof args, "--config %s %s", config, LAYER);
    time_t t0 = time(NULL);
    RT_CHECK(cli_hum(args) == 1, "loop in tunings: exit 1:\n%s", cli_output);
    RT_CHECK(time(NULL) - t0 < 20, "the loop was stopped after %ld s", (long)(time(NULL) - t0));
    snprintf(want, sizeof want,
             "%s:3: tunings(device, layer, overrides, compute) ran past the policy time limit of 200 ms", path);
    cli_has("loop in tunings", want);

    unsetenv("HUM_POLICY_PATH");
    RT_CHECK(cli_hum(LAYER) == 0, "without the attacker the layer compiles:\n%s", cli_output);
    rt_rmtree(dir);
    return rt_test_result("test_cli_policy_sandbox");
}
