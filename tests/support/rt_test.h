/* Test helpers of the runtime area (config, runtime object, Lua layer): a failure-counting
 * check, expectations on a status and its hum_last_error() message, and scratch directories
 * with files written into them. */
#ifndef HUM_RT_TEST_H
#define HUM_RT_TEST_H

#include "hum/hum_tools.h"

#include <stddef.h>

extern int rt_failures;

/* Records a failure with file:line and a printf-style explanation; evaluates to cond. The
 * explanation's arguments are evaluated only when cond fails, after it, so one may read
 * hum_last_error() of the call in cond (a function's arguments have no order in C), and a
 * helper called there may run checks of its own. */
#define RT_CHECK(cond, ...) ((cond) ? rt_check_passed() : rt_check_at(0, __FILE__, __LINE__, #cond, __VA_ARGS__))
static inline int rt_check_passed(void) { return 1; }
int rt_check_at(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Checks that `got` is `want` and that hum_last_error() contains every NULL-terminated
 * substring that follows; `what` names the case in the report. */
#define RT_EXPECT_ERROR(got, want, what, ...)                                                                          \
    rt_expect_error_at(__FILE__, __LINE__, what, got, want, __VA_ARGS__, (const char *)0)
int rt_expect_error_at(const char *file, int line, const char *what, hum_status got, hum_status want, ...);

/* Exit status for main: 0 when no check failed, 1 otherwise (prints the count). */
int rt_test_result(const char *test_name);

/* A fresh directory under $TMPDIR (or /tmp) named after `tag`; aborts the test on failure. */
void rt_tmpdir(const char *tag, char *out, size_t cap);
/* Writes `text` to dir/name (creating parent directories); returns the full path in a static
 * buffer rotated over 8 calls. */
const char *rt_write(const char *dir, const char *name, const char *text);
/* Sets the modification time of `path` to `seconds` after the epoch, so that a rewrite is
 * seen as a change however coarse the file system's clock is. */
void rt_set_mtime(const char *path, long seconds);
/* Removes a directory tree made by rt_tmpdir. */
void rt_rmtree(const char *dir);

/* The deployment config that runs MoE layers in MXFP8 (docs/config.md, overrides). */
#define RT_MOE_MXFP8_YAML "overrides:\n  moe:\n    activation: mxfp8\n"
/* A runtime under the deployment config `yaml`, written to dir/hum.yaml: hum_runtime_create's
 * status, *out NULL on failure. */
hum_status rt_runtime_with_config(const char *dir, const char *yaml, hum_runtime **out);

#endif
