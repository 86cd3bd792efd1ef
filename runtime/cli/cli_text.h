/* Text read from a user's files (tensor and layer names), made safe to print. */
#ifndef HUM_CLI_TEXT_H
#define HUM_CLI_TEXT_H

#include <stddef.h>

/* `text` with every control character (newline and tab included) and DEL written as \xHH and a
 * backslash as \\, into buf (truncated to cap); returns buf. A name read from a file then
 * cannot move the cursor, recolour the terminal or forge an output line. */
const char *cli_escape(const char *text, char *buf, size_t cap);

/* A message of hum_last_error() on one line: its newlines and tabs (multi-line compiler logs) as
 * \xHH, its backslashes as they are, since the message already shows every name it quotes with
 * control characters escaped (hum_printable); a second escape would double them. */
const char *cli_escape_message(const char *text, char *buf, size_t cap);

#endif
