/* Scans of JSON text for what cJSON's result hides: NUL escapes C strings cannot hold, and the
 * nesting where cJSON stopped. */
#ifndef HUM_IO_JSON_TEXT_H
#define HUM_IO_JSON_TEXT_H

#include <stddef.h>

/* Offset of the first \u0000 escape inside a string of JSON text s (len bytes), or -1: cJSON
 * keeps such a string whole but C reads it to the NUL, so a name "a\u0000b" would be "a". */
long long hum_json_nul_escape(const char *s, size_t len);

/* The nesting of lists and objects at byte `at` of JSON text s (brackets inside strings not
 * counted): where cJSON stops past CJSON_NESTING_LIMIT on text that is valid JSON. */
long hum_json_depth_at(const char *s, size_t at);

/* Offset of the first byte of s (len bytes) that breaks UTF-8 (RFC 3629: no overlongs, no
 * surrogates, at most U+10FFFF), or -1: the reference safetensors parser rejects a header with
 * one, and so does hum's (and its writer never writes one). */
long long hum_json_utf8_error(const char *s, size_t len);

#endif
