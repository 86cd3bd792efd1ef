/* Thread-local error messages: every failing call leaves one, hum_last_error() reads it. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

enum { HUM_ERROR_CAP = 4096 };
static _Thread_local char last_error[HUM_ERROR_CAP];

const char *hum_last_error(void) { return last_error; }

void hum_clear_error(void) { last_error[0] = '\0'; }

/* Control characters become \xHH, tabs and newlines excepted (compiler logs are multi-line):
 * messages quote names read from files (tensor names, keys), and a name must not move the
 * cursor, recolour a terminal or forge a line of its own. */
static void escape_controls(void)
{
    char out[HUM_ERROR_CAP];
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)last_error; *p && used + 5 < sizeof out; p++) {
        if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
            used += (size_t)snprintf(out + used, sizeof out - used, "\\x%02x", *p);
        else
            out[used++] = (char)*p;
    }
    out[used] = '\0';
    memcpy(last_error, out, used + 1);
}

const char *hum_printable(const char *name)
{
    static _Thread_local char ring[4][512];
    static _Thread_local unsigned next;
    char *out = ring[next++ % 4];
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)name; p && *p && used + 5 < sizeof ring[0]; p++) {
        if (*p < 0x20 || *p == 0x7f)
            used += (size_t)snprintf(out + used, sizeof ring[0] - used, "\\x%02x", *p);
        else
            out[used++] = (char)*p;
    }
    out[used] = '\0';
    return out;
}

hum_status hum_failv(hum_status status, const char *fmt, va_list ap)
{
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    escape_controls();
    return status;
}

hum_status hum_fail(hum_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hum_failv(status, fmt, ap);
    va_end(ap);
    return status;
}

hum_status hum_fail_context(hum_status status, const char *fmt, ...)
{
    char old[HUM_ERROR_CAP];
    memcpy(old, last_error, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof last_error)
        snprintf(last_error + n, sizeof last_error - (size_t)n, ": %s", old);
    escape_controls();
    return status;
}

const char *hum_status_name(hum_status status)
{
    switch (status) {
    case HUM_OK: return "HUM_OK";
    case HUM_ERR_INVALID_ARG: return "HUM_ERR_INVALID_ARG";
    case HUM_ERR_NO_DEVICE: return "HUM_ERR_NO_DEVICE";
    case HUM_ERR_CUDA: return "HUM_ERR_CUDA";
    case HUM_ERR_COMPILE: return "HUM_ERR_COMPILE";
    case HUM_ERR_IO: return "HUM_ERR_IO";
    case HUM_ERR_FORMAT: return "HUM_ERR_FORMAT";
    case HUM_ERR_UNSUPPORTED: return "HUM_ERR_UNSUPPORTED";
    case HUM_ERR_CONFIG: return "HUM_ERR_CONFIG";
    case HUM_ERR_POLICY: return "HUM_ERR_POLICY";
    case HUM_ERR_OUT_OF_MEMORY: return "HUM_ERR_OUT_OF_MEMORY";
    case HUM_ERR_INTERNAL: return "HUM_ERR_INTERNAL";
    }
    return "HUM_ERR_UNKNOWN";
}

const char *hum_version(void) { return HUM_VERSION_STRING; }
