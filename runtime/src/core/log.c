#include "log.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const level_names[] = {"error", "warn", "info", "debug"};

const char *hum_log_level_name(hum_log_level level)
{
    return (unsigned)level < 4 ? level_names[level] : "?";
}

void hum_log_message(hum_log_level limit, hum_log_level level, const char *fmt, ...)
{
    if (level > limit)
        return;
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "hum: %s: %s\n", hum_log_level_name(level), msg);
}
