#include "regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int hum_open_regular(const char *path, int pipes, const char **why)
{
    /* O_NONBLOCK: the open itself does not wait for a FIFO's writer */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *why = strerror(errno);
        return -1;
    }
    struct stat sb;
    const char *wrong = NULL;
    int err = 0;
    if (fstat(fd, &sb) != 0) {
        err = errno;
        wrong = strerror(err);
    } else if (S_ISDIR(sb.st_mode)) {
        err = EISDIR;
        wrong = "is a directory";
    } else if (!S_ISREG(sb.st_mode) && !(pipes && S_ISFIFO(sb.st_mode))) {
        err = EINVAL;
        wrong = pipes ? "not a regular file or a pipe" : "not a regular file";
    } else {
        const int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
            err = errno;
            wrong = strerror(err);
        }
    }
    if (wrong) {
        close(fd);
        *why = wrong;
        errno = err;
        return -1;
    }
    return fd;
}

FILE *hum_fopen_regular(const char *path, int pipes, const char **why)
{
    const int fd = hum_open_regular(path, pipes, why);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        const int err = errno;
        close(fd);
        *why = strerror(err);
        errno = err;
    }
    return f;
}
