/* json_text.h: scans of JSON text that step over its strings. */
#include "json_text.h"

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
