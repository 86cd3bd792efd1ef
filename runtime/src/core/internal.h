/* Private declarations shared by the files of libhum. Not installed. */
#ifndef HUM_INTERNAL_H
#define HUM_INTERNAL_H

#include "hum/hum.h"

#include <stdarg.h>

#if defined(__GNUC__)
#define HUM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define HUM_PRINTF(a, b)
#endif

/* Record a message for hum_last_error() on this thread and return `status`, so that error
 * paths read `return hum_fail(HUM_ERR_FORMAT, "%s: ...", path);`. */
hum_status hum_fail(hum_status status, const char *fmt, ...) HUM_PRINTF(2, 3);
hum_status hum_failv(hum_status status, const char *fmt, va_list ap);
/* `name` (a tensor or key name read from a file) fit to quote in a message: control characters,
 * newlines included, as \xHH (hum_fail keeps newlines: compiler logs have them). A thread-local
 * copy, valid until the 4th next call. */
const char *hum_printable(const char *name);
/* Prefix the current message with context ("loading layer x: <old message>"); returns status. */
hum_status hum_fail_context(hum_status status, const char *fmt, ...) HUM_PRINTF(2, 3);
void hum_clear_error(void);

/* Modules hum_kernel_load has loaded and hum_kernel_destroy not yet unloaded, process-wide (a
 * reload must leave as many as it found: tests count them). */
int64_t hum_kernel_loaded_count(void);

#endif
