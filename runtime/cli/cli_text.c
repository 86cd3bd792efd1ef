/* cli_text.h */
#include "cli_text.h"

#include <stdio.h>

static const char *escape(const char *text, char *buf, size_t cap, int backslashes)
{
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && used + 5 < cap; p++) {
        if (*p < 0x20 || *p == 0x7f)
            used += (size_t)snprintf(buf + used, cap - used, "\\x%02x", *p);
        else if (*p == '\\' && backslashes)
            used += (size_t)snprintf(buf + used, cap - used, "\\\\");
        else
            buf[used++] = (char)*p;
    }
    if (cap)
        buf[used < cap ? used : cap - 1] = '\0';
    return buf;
}

const char *cli_escape(const char *text, char *buf, size_t cap) { return escape(text, buf, cap, 1); }

const char *cli_escape_message(const char *text, char *buf, size_t cap) { return escape(text, buf, cap, 0); }
