/* Checks on JSON text that cJSON passes but C strings cannot hold. */
#ifndef HUM_IO_JSON_TEXT_H
#define HUM_IO_JSON_TEXT_H

#include <stddef.h>

/* Offset of the first \u0000 escape inside a string of JSON text s (len bytes), or -1: cJSON
 * keeps such a string whole but C reads it to the NUL, so a name "a\u0000b" would be "a". */
long long hum_json_nul_escape(const char *s, size_t len);

#endif
