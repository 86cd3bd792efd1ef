/* Text read from a user's files (tensor and layer names), made safe to print. */
#ifndef HUM_CLI_TEXT_H
#define HUM_CLI_TEXT_H

#include <stddef.h>

/* `text` with every control character (newline and tab included) and DEL written as \xHH and a
 * backslash as \\, into buf (truncated to cap); returns buf. A name read from a file then
 * cannot move the cursor, recolour the terminal or forge an output line. */
const char *cli_escape(const char *text, char *buf, size_t cap);

#endif
