/* Log lines on stderr, "hum: <level>: <message>", below a limit (the deployment config's
 * log_level; hum_log in runtime.h reads it from a runtime). */
#ifndef HUM_LOG_H
#define HUM_LOG_H

#include "hum/hum_tools.h"

typedef enum hum_log_level {
    HUM_LOG_ERROR = 0,
    HUM_LOG_WARN = 1,
    HUM_LOG_INFO = 2,
    HUM_LOG_DEBUG = 3
} hum_log_level;

/* "error", "warn", "info", "debug"; "?" for anything else. */
const char *hum_log_level_name(hum_log_level level);

/* Writes the line when level <= limit. */
void hum_log_message(hum_log_level limit, hum_log_level level, const char *fmt, ...) HUM_PRINTF(3, 4);

#endif
