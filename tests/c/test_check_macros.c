/* The failure-counting checks of tests/support (RT_CHECK, QUANT_CHECK): a failing check counts
 * once even when its message calls a helper that runs passing checks of its own (the version of
 * d6f1284 kept cond in a variable such a helper overwrote: test_dtype's round-trip checks could
 * not fail under gcc), and a message reads hum_last_error() of the call in cond. */
#include "quant_test.h"
#include "rt_test.h"

#include <stdio.h>
#include <string.h>

static int rt_helper(void)
{
    RT_CHECK(1, "passes");
    return 7;
}

static int quant_helper(void)
{
    QUANT_CHECK(1, "passes");
    return 7;
}

static char seen[512];

/* The message's argument: what hum_last_error() says when the message is made. */
static const char *last_error_now(void)
{
    snprintf(seen, sizeof seen, "%s", hum_last_error());
    return seen;
}

int main(void)
{
    int ok = 1;
    const int r0 = rt_failures, q0 = quant_failures;
    if (RT_CHECK(0, "expected failure (helper %d)", rt_helper()) != 0 || rt_failures != r0 + 1) {
        fprintf(stderr, "RT_CHECK(0) with a checking helper in its message: %d failures, expected 1\n",
                rt_failures - r0);
        ok = 0;
    }
    if (QUANT_CHECK(0, "expected failure (helper %d)", quant_helper()) != 0 || quant_failures != q0 + 1) {
        fprintf(stderr, "QUANT_CHECK(0) with a checking helper in its message: %d failures, expected 1\n",
                quant_failures - q0);
        ok = 0;
    }
    if (RT_CHECK(1, "never formatted %d", rt_helper()) != 1 || rt_failures != r0 + 1) {
        fprintf(stderr, "RT_CHECK(1) counted a failure\n");
        ok = 0;
    }
    /* the message reads the error of the failing call in cond, not an older one */
    hum_layer_spec spec;
    hum_layer_spec_parse("n=1", &spec); /* an older error */
    RT_CHECK(hum_layer_spec_parse("bogus_key=3", &spec) == HUM_OK, "%s", last_error_now());
    if (!strstr(seen, "bogus_key")) {
        fprintf(stderr, "the message read a stale error: %s\n", seen);
        ok = 0;
    }
    printf("test_check_macros: %s (3 expected failures reported above)\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
