/* Opening a file a user named, for reading, only where it is a regular file. open(2) of a FIFO
 * for reading waits for a writer, for ever where none comes, and a device or socket streams what
 * it likes: a config, checkpoint, policy or kernel source that turns out to be one must fail with
 * a message, not hang the process. */
#ifndef HUM_REGULAR_FILE_H
#define HUM_REGULAR_FILE_H

#include <stdio.h>

/* A read-only descriptor of `path` (close-on-exec, blocking), or -1 with errno set and *why the
 * reason for a message: strerror(errno), "is a directory", "not a regular file" or, with
 * `pipes`, "not a regular file or a pipe" (errno EISDIR or EINVAL then), so that callers can
 * still tell ENOENT apart. `pipes`: a pipe or FIFO is taken too (`--config <(...)`), for text read
 * to its end; one that no process writes reads as empty, since the open did not wait for one. */
int hum_open_regular(const char *path, int pipes, const char **why);

/* The same as a stream opened "rb". */
FILE *hum_fopen_regular(const char *path, int pipes, const char **why);

#endif
