/* `hum tune` on the GPU (skipped without one): a small layer tuned at two M values within a
 * budget writes a policy file whose recorded times are never slower than the table in force,
 * which `hum info --layer` then shows in force for that layer (each range from the file) and
 * not for another N; a second run without --force refuses to replace it; a layer that quantizes
 * its A tunes too. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "cli_test.h"
#include "device.h"
#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    int32_t gpus = 0;
    if (hum_device_count(&gpus) != HUM_OK || gpus == 0) {
        printf("cli_tune: skipped (%s)\n", gpus == 0 ? "no GPU" : hum_last_error());
        return 77;
    }
    char dir[4096], out[4200], args[8600];
    rt_tmpdir("cli-tune-gpu", dir, sizeof dir);
    unsetenv("HUM_POLICY_PATH");
    unsetenv("HUM_CONFIG");
    snprintf(out, sizeof out, "%s/tuned.lua", dir);
    const char *spec = "n=1024,k=1024,w=uint4,a=float16,group=128";
    snprintf(args, sizeof args, "tune --layer %s --m 1,48 --budget 60 --warmup 3 --reps 10 --out %s", spec, out);
    if (!RT_CHECK(cli_hum(args) == 0, "hum tune:\n%s", cli_output))
        return rt_test_result("cli_tune");
    cli_has("hum tune", "candidates timed");
    cli_has("hum tune", "the tuned table, as the written file gives it");

    /* every "M=<m> <before> -> <after>" of the file: after <= before */
    FILE *f = fopen(out, "rb");
    char text[32768] = "";
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    RT_CHECK(strstr(text, "-- Written by `hum tune` on ") == text, "the file's header:\n%s", text);
    int pairs = 0;
    for (const char *p = text; (p = strstr(p, "M=")) != NULL; p += 2) {
        long long m;
        double before, after;
        int got = sscanf(p, "M=%lld %lf -> %lf", &m, &before, &after);
        if (got == 3) {
            pairs++;
            RT_CHECK(after <= before, "M = %lld: %.2f us after tuning, %.2f before", m, after, before);
        } else {
            RT_CHECK(got == 2 && before > 0, "M = %lld kept with a time: '%.40s'", m, p);
        }
    }
    printf("cli_tune: %d M values improved\n", pairs);

    setenv("HUM_POLICY_PATH", dir, 1);
    snprintf(args, sizeof args, "info --layer %s", spec);
    RT_CHECK(cli_hum(args) == 0, "info with the tuned file:\n%s", cli_output);
    char from[4300];
    snprintf(from, sizeof from, "from %s:", out);
    cli_has("info with the tuned file", from);
    RT_CHECK(!strstr(cli_output, "from embedded:"), "every range from the tuned file:\n%s", cli_output);
    RT_CHECK(cli_hum("info --layer n=2048,k=1024,w=uint4,a=float16,group=128") == 0, "another N:\n%s", cli_output);
    RT_CHECK(!strstr(cli_output, from) && strstr(cli_output, "from embedded:policies/"),
             "another N keeps the built-in table:\n%s", cli_output);
    unsetenv("HUM_POLICY_PATH");

    snprintf(args, sizeof args, "tune --layer %s --m 1 --budget 30 --out %s", spec, out);
    RT_CHECK(cli_hum(args) == 1, "no --force:\n%s", cli_output);
    cli_has("no --force", "refusing to replace it");

    /* a layer that quantizes its A (e4m3 per token where the GPU has fp8 MMAs, else 16-bit): the
     * host's A is 16-bit, each candidate checked against the reference of A quantized the same
     * way at the 8-bit pass mark */
    snprintf(out, sizeof out, "%s/tuned-a8.lua", dir);
    snprintf(args, sizeof args,
             "tune --layer n=1024,k=1024,w=e4m3,a=e4m3 --m 1,48 --budget 40 --warmup 3 --reps 10 --out %s", out);
    RT_CHECK(cli_hum(args) == 0, "hum tune of an 8-bit-A layer:\n%s", cli_output);
    cli_has("hum tune of an 8-bit-A layer", "candidates timed");
    cli_has("hum tune of an 8-bit-A layer", "the tuned table, as the written file gives it");
    f = fopen(out, "rb");
    RT_CHECK(f != NULL, "no tuned file %s", out);
    if (f)
        fclose(f);
    rt_rmtree(dir);
    return rt_test_result("cli_tune");
}
