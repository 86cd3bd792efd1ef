/* The built-in policies give every weight width a dispatch table on each arch's nominal device:
 * whatever a policy asks for must fit that device once planning has fitted it (e.g. two CTAs
 * per SM of 8-bit weights' tiles overflowed the 64 KiB of sm_75). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "rt_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    unsetenv("HUM_POLICY_PATH");
    unsetenv("HUM_CONFIG");
    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    hum_runtime_options opts;
    hum_runtime_options_init(&opts);
    hum_runtime *rt = NULL;
    if (!RT_CHECK(hum_runtime_create(&opts, &rt) == HUM_OK, "%s", hum_last_error()))
        return rt_test_result("test_policy_builtin");

    static const char *const archs[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90a"};
    static const char *const weights[] = {"uint1", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7",
                                          "uint8", "e4m3",  "e5m2",  "e2m1",  "e3m2",  "e2m3"};
    static const char *const groups[] = {"0", "32", "128"};
    for (size_t a = 0; a < sizeof archs / sizeof *archs; a++)
        for (size_t w = 0; w < sizeof weights / sizeof *weights; w++)
            for (size_t g = 0; g < sizeof groups / sizeof *groups; g++) {
                char text[128];
                snprintf(text, sizeof text, "n=4096,k=4096,w=%s,a=float16,group=%s", weights[w], groups[g]);
                hum_layer_spec spec;
                hum_layer_dispatch d;
                memset(&d, 0, sizeof d);
                hum_status st = hum_layer_spec_parse(text, &spec);
                if (st == HUM_OK)
                    st = hum_layer_describe_spec(rt, &spec, archs[a], &d);
                if (!RT_CHECK(st == HUM_OK, "%s on %s: %s", text, archs[a], hum_last_error()))
                    continue;
                /* contiguous from M = 1 to the end, each row fitting the nominal device */
                int64_t next = 1;
                for (int32_t i = 0; i < d.row_count; i++) {
                    RT_CHECK(d.rows[i].tuning.m_min == next, "%s on %s: row %d starts at %lld, expected %lld", text,
                             archs[a], i, (long long)d.rows[i].tuning.m_min, (long long)next);
                    RT_CHECK(d.rows[i].smem_bytes > 0 && d.rows[i].threads >= 32,
                             "%s on %s: row %d: %lld B, %d threads", text, archs[a], i, (long long)d.rows[i].smem_bytes,
                             d.rows[i].threads);
                    next = d.rows[i].tuning.m_max == INT64_MAX ? INT64_MAX : d.rows[i].tuning.m_max + 1;
                }
                RT_CHECK(d.row_count >= 1 && next == INT64_MAX, "%s on %s: %d rows ending before M = inf", text,
                         archs[a], d.row_count);
            }
    hum_runtime_destroy(rt);
    return rt_test_result("test_policy_builtin");
}
