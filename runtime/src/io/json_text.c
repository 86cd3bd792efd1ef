/* json_text.h: scans of JSON text that step over its strings. */
#include "json_text.h"

#include <stdint.h>
#include <string.h>

long long hum_json_nul_escape(const char *s, size_t len)
{
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"') {
            in_string = !in_string;
        } else if (in_string && s[i] == '\\' && i + 1 < len) {
            if (s[i + 1] == 'u' && i + 5 < len && memcmp(s + i + 2, "0000", 4) == 0)
                return (long long)i;
            i++; /* the escaped character: \" does not end the string, \\ escapes nothing after it */
        }
    }
    return -1;
}

long hum_json_depth_at(const char *s, size_t at)
{
    long depth = 0;
    int in_string = 0;
    for (size_t i = 0; i < at; i++) {
        if (in_string) {
            if (s[i] == '\\')
                i++;
            else if (s[i] == '"')
                in_string = 0;
        } else if (s[i] == '"') {
            in_string = 1;
        } else {
            depth += (s[i] == '[' || s[i] == '{') - (s[i] == ']' || s[i] == '}');
        }
    }
    return depth;
}

long long hum_json_utf8_error(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < len;) {
        unsigned c = s[i];
        size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (n == 0 || i + n > len)
            return (long long)i;
        uint32_t cp = n == 1 ? c : c & (0x7Fu >> n);
        for (size_t j = 1; j < n; j++) {
            if ((s[i + j] & 0xC0) != 0x80)
                return (long long)i;
            cp = cp << 6 | (s[i + j] & 0x3F);
        }
        static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return (long long)i;
        i += n;
    }
    return -1;
}
