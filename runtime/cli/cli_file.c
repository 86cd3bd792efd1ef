/* cli_file.h: atomic file writes. */
#define _GNU_SOURCE /* renameat2, RENAME_NOREPLACE */

#include "cli_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* rename(2) that refuses to replace `to`: renameat2 where the file system has it, else a hard
 * link (which never replaces) and the temporary name removed. */
static int rename_new(const char *from, const char *to)
{
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    if (link(from, to) != 0)
        return -1;
    unlink(from);
    return 0;
}

hum_status cli_write_file(const char *path, const void *data, size_t size, int replace)
{
    if (!path || (!data && size))
        return hum_fail(HUM_ERR_INVALID_ARG, "cli_write_file: NULL %s", !path ? "path" : "data");
    if (!replace && access(path, F_OK) == 0)
        return hum_fail(HUM_ERR_IO, "%s exists (give --force to replace it)", path);
    size_t len = strlen(path) + 16;
    char *tmp = malloc(len);
    if (!tmp)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "writing %s", path);
    snprintf(tmp, len, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        hum_status st = hum_fail(HUM_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        return st;
    }
    const char *p = data;
    size_t left = size;
    int err = 0;
    while (left > 0 && !err) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            err = n < 0 ? errno : EIO;
        else {
            p += n;
            left -= (size_t)n;
        }
    }
    /* mkstemp makes the file 0600; give it the mode a plain create would (0666 less the umask) */
    const mode_t mask = umask(0);
    umask(mask);
    if (!err && fchmod(fd, 0666 & ~mask) != 0)
        err = errno;
    if (!err && fsync(fd) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    hum_status st = HUM_OK;
    if (err)
        st = hum_fail(HUM_ERR_IO, "cannot write %s: %s", tmp, strerror(err));
    else if ((replace ? rename(tmp, path) : rename_new(tmp, path)) != 0)
        st = errno == EEXIST ? hum_fail(HUM_ERR_IO, "%s exists (give --force to replace it)", path)
                             : hum_fail(HUM_ERR_IO, "cannot move %s to %s: %s", tmp, path, strerror(errno));
    if (st != HUM_OK)
        unlink(tmp);
    free(tmp);
    return st;
}
