/* Private declarations shared by the files of libhum. Not installed. */
#ifndef HUM_INTERNAL_H
#define HUM_INTERNAL_H

#include "hum/hum_tools.h"

#include <stdarg.h>

/* hum_fail (hum/hum_tools.h) with a va_list. */
hum_status hum_failv(hum_status status, const char *fmt, va_list ap);
void hum_clear_error(void);

#endif
