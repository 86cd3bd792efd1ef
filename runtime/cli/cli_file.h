/* Writing a whole file so that readers see the old file or the new one, never a part. */
#ifndef HUM_CLI_FILE_H
#define HUM_CLI_FILE_H

#include "hum/hum_tools.h"

#include <stddef.h>

/* Writes `size` bytes of `data` to a temporary file beside `path`, flushes it to disk, then
 * moves it to `path`: over an existing file only when `replace` is nonzero, else an existing
 * file (even one created meanwhile) is HUM_ERR_IO naming it, and is left untouched. On any
 * failure nothing new is left behind. Errors: HUM_ERR_IO naming the path and the reason. */
hum_status cli_write_file(const char *path, const void *data, size_t size, int replace);

#endif
