/* Option values shared by the GEMM commands (see bench_args.h). */
#include "bench_args.h"


#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

hum_status bench_parse_m_list(const char *text, int64_t *values, int32_t cap, int32_t *count)
{
    *count = 0;
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[32];
        if (len == 0 || len >= sizeof item)
            return hum_fail(HUM_ERR_INVALID_ARG,
                            "--m '%s': entry %d is %s (expected integers 1..2^31-1 separated by commas)", text,
                            *count + 1, len == 0 ? "empty" : "too long");
        memcpy(item, p, len);
        item[len] = '\0';
        char *stop;
        errno = 0;
        long long v = strtoll(item, &stop, 10);
        if (*stop != '\0' || errno != 0 || v < 1 || v > INT32_MAX || item[0] == '+' || item[0] == ' ')
            return hum_fail(HUM_ERR_INVALID_ARG, "--m '%s': '%s' is not an M (expected an integer 1..2^31-1)", text,
                            item);
        if (*count == cap)
            return hum_fail(HUM_ERR_INVALID_ARG, "--m '%s': more than %d values", text, cap);
        values[(*count)++] = v;
        if (end == NULL)
            return HUM_OK;
        p = end + 1;
    }
}

hum_status bench_parse_activation(const char *text, hum_dtype *out)
{
    hum_dtype t = HUM_DTYPE_INVALID;
    if (hum_dtype_parse(text, &t) != HUM_OK || (t != HUM_DTYPE_FLOAT16 && t != HUM_DTYPE_BFLOAT16))
        return hum_fail(HUM_ERR_INVALID_ARG, "activation dtype '%s' (expected float16 or bfloat16)", text);
    *out = t;
    return HUM_OK;
}

int bench_parse_count(const char *command, const char *name, const char *text, int32_t fallback, int32_t minimum,
                      int32_t *out)
{
    if (text == NULL) {
        *out = fallback;
        return 0;
    }
    /* digits only: strtol alone takes "" as 0 and skips leading blanks and a sign */
    char *end;
    long v = strtol(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || v < minimum || v > 100000) {
        fprintf(stderr, "%s: %s '%s' (expected an integer %d..100000)\n", command, name, text, minimum);
        return 2;
    }
    *out = (int32_t)v;
    return 0;
}
