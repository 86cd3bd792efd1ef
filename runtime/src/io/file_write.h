/* Files written whole: a temporary file beside the target, then one rename, so that a reader
 * sees the old file or the new one, never a part (hum_file_write, hum_safetensors_write). */
#ifndef HUM_IO_FILE_WRITE_H
#define HUM_IO_FILE_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* A new temporary file beside `path`, its name in tmp (cap bytes), opened "wb"; NULL with errno
 * set. Created here (O_EXCL: no existing entry taken, no link planted at the name followed) with
 * mode 0666 less the umask, as a plain create gives (mkstemp's 0600 would need the umask read, which
 * no thread of a host can do safely). */
FILE *hum_io_create_temp(const char *path, char *tmp, size_t cap);

/* Ends the write of a temporary file: flushes `f`, syncs it to disk and closes it, also when
 * `err` (a write error the caller met, or 0) is set. Returns 0 or the first errno met, `err`
 * first: a full disk or a quota may show only at the flush or the sync, and a file renamed over
 * another before its data is on disk can be empty after a crash. */
int hum_io_finish(FILE *f, int err);

/* Moves the written temporary `tmp` to `path`: over an existing file (or symbolic link, itself
 * replaced) only when `replace`, else -1 with errno EEXIST where `path` exists, even one made
 * since the caller looked; never over a device, FIFO, socket or directory (EEXIST). 0 or -1 with
 * errno set; `tmp` is left for the caller to remove on failure. */
int hum_io_commit(const char *tmp, const char *path, int replace);

#endif
