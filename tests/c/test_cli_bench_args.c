/* Option values of the GEMM commands: M lists and activation dtypes, good and bad; scratch
 * directories are created fresh and removed with everything under them. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "bench_args.h"
#include "bench_tmpdir.h"
#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void check_tmpdir(void)
{
    char dir[4096], other[4096];
    RT_CHECK(bench_tmpdir_create("args", dir, sizeof dir) == HUM_OK, "%s", hum_last_error());
    RT_CHECK(bench_tmpdir_create("args", other, sizeof other) == HUM_OK && strcmp(dir, other) != 0,
             "two directories differ: %s %s", dir, other);
    RT_CHECK(strstr(dir, "/hum-args-") != NULL, "named after the tag: %s", dir);
    rt_write(dir, "a/b/file.txt", "x");
    rt_write(dir, "top.txt", "y");
    bench_tmpdir_remove(dir);
    bench_tmpdir_remove(other);
    struct stat sb;
    RT_CHECK(stat(dir, &sb) != 0 && stat(other, &sb) != 0, "both removed with their contents");
    char saved[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(saved, sizeof saved, "%s", tmp ? tmp : "");
    setenv("TMPDIR", "/nonexistent-hum-dir", 1);
    RT_EXPECT_ERROR(bench_tmpdir_create("args", dir, sizeof dir), HUM_ERR_IO, "missing TMPDIR",
                    "/nonexistent-hum-dir/hum-args-");
    if (tmp)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
}

int main(void)
{
    int64_t m[BENCH_MAX_M_VALUES];
    int32_t count = -1;
    RT_CHECK(bench_parse_m_list("1,16,128,1000", m, BENCH_MAX_M_VALUES, &count) == HUM_OK, "%s", hum_last_error());
    RT_CHECK(count == 4 && m[0] == 1 && m[1] == 16 && m[2] == 128 && m[3] == 1000, "parsed %d values", count);
    RT_CHECK(bench_parse_m_list("2147483647", m, BENCH_MAX_M_VALUES, &count) == HUM_OK && count == 1 &&
                 m[0] == 2147483647,
             "largest M");
    RT_EXPECT_ERROR(bench_parse_m_list("1,0", m, BENCH_MAX_M_VALUES, &count), HUM_ERR_INVALID_ARG, "zero", "'0'");
    RT_EXPECT_ERROR(bench_parse_m_list("1,,2", m, BENCH_MAX_M_VALUES, &count), HUM_ERR_INVALID_ARG, "empty entry",
                    "entry 2 is empty");
    RT_EXPECT_ERROR(bench_parse_m_list("16,", m, BENCH_MAX_M_VALUES, &count), HUM_ERR_INVALID_ARG, "trailing comma",
                    "entry 2 is empty");
    RT_EXPECT_ERROR(bench_parse_m_list("8x", m, BENCH_MAX_M_VALUES, &count), HUM_ERR_INVALID_ARG, "junk", "'8x'");
    RT_EXPECT_ERROR(bench_parse_m_list("-4", m, BENCH_MAX_M_VALUES, &count), HUM_ERR_INVALID_ARG, "negative", "'-4'");
    RT_EXPECT_ERROR(bench_parse_m_list("2147483648", m, BENCH_MAX_M_VALUES, &count), HUM_ERR_INVALID_ARG, "too large",
                    "2147483648");
    RT_EXPECT_ERROR(bench_parse_m_list("1,2,3", m, 2, &count), HUM_ERR_INVALID_ARG, "too many", "more than 2");

    hum_dtype t = HUM_DTYPE_INVALID;
    RT_CHECK(bench_parse_activation("float16", &t) == HUM_OK && t == HUM_DTYPE_FLOAT16, "float16");
    RT_CHECK(bench_parse_activation("bf16", &t) == HUM_OK && t == HUM_DTYPE_BFLOAT16, "bf16");
    RT_EXPECT_ERROR(bench_parse_activation("float32", &t), HUM_ERR_INVALID_ARG, "float32", "'float32'",
                    "float16 or bfloat16");
    RT_EXPECT_ERROR(bench_parse_activation("e4m3", &t), HUM_ERR_INVALID_ARG, "e4m3", "'e4m3'");
    check_tmpdir();
    return rt_test_result("test_cli_bench_args");
}
