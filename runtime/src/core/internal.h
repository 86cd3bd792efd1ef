/* Private declarations shared by the files of libhum. Not installed. */
#ifndef HUM_INTERNAL_H
#define HUM_INTERNAL_H

#include "hum/hum_tools.h"

#include <stdarg.h>

/* hum_fail (hum/hum_tools.h) with a va_list. */
hum_status hum_failv(hum_status status, const char *fmt, va_list ap);
/* `name` (a tensor or key name read from a file) fit to quote in a message: control characters,
 * newlines included, as \xHH (hum_fail keeps newlines: compiler logs have them). A thread-local
 * copy, valid until the 4th next call. */
const char *hum_printable(const char *name);
void hum_clear_error(void);
/* HUM_OK when a layer or MoE SPEC (`kind`: "layer", "moe") holds printable ASCII alone; else
 * HUM_ERR_INVALID_ARG naming the first other byte, before any message quotes the text (a
 * newline or a 0xff byte in it would reach the terminal as they are). */
hum_status hum_spec_check_text(const char *kind, const char *text);

/* ceil(a / b) for a >= 0, b >= 1, without a + b - 1 (which wraps for a group size near
 * INT64_MAX: a weight's scales became [N, 0]). */
static inline int64_t hum_ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/* Modules hum_kernel_load has loaded and hum_kernel_destroy not yet unloaded, process-wide (a
 * reload must leave as many as it found: tests count them). */
int64_t hum_kernel_loaded_count(void);

#endif
