#include "file_write.h"

#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *hum_io_create_temp(const char *path, char *tmp, size_t cap)
{
    static atomic_uint counter;
    for (int tries = 0; tries < 64; tries++) {
        if (snprintf(tmp, cap, "%s.tmp-%ld-%u", path, (long)getpid(), atomic_fetch_add(&counter, 1)) >= (int)cap) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            return NULL;
        }
        FILE *f = fdopen(fd, "wb");
        if (!f) {
            const int err = errno;
            close(fd);
            unlink(tmp);
            errno = err;
        }
        return f;
    }
    return NULL; /* errno EEXIST */
}

int hum_io_finish(FILE *f, int err)
{
    if (!err && fflush(f) != 0)
        err = errno;
    if (!err && fsync(fileno(f)) != 0)
        err = errno;
    if (fclose(f) != 0 && !err)
        err = errno;
    return err;
}

int hum_io_commit(const char *tmp, const char *path, int replace)
{
    if (replace) {
        /* a device, FIFO or socket is no file to replace (run as root over /dev/null, the rename
         * left a regular file in its place) */
        struct stat at;
        if (lstat(path, &at) == 0 && !S_ISREG(at.st_mode) && !S_ISLNK(at.st_mode)) {
            errno = EEXIST;
            return -1;
        }
        return rename(tmp, path);
    }
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    /* a file system without RENAME_NOREPLACE: a hard link never replaces either */
    if (link(tmp, path) != 0)
        return -1;
    unlink(tmp);
    return 0;
}

hum_status hum_file_write(const char *path, const void *data, size_t size, int replace)
{
    if (!path || (!data && size))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_file_write: NULL %s", !path ? "path" : "data");
    const size_t cap = strlen(path) + 32;
    char *tmp = malloc(cap);
    if (!tmp)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "writing %s", path);
    FILE *f = hum_io_create_temp(path, tmp, cap);
    if (!f) {
        const hum_status st = hum_fail(HUM_ERR_IO, "%s: cannot create (through %s): %s", path, tmp, strerror(errno));
        free(tmp);
        return st;
    }
    /* a short write may leave errno unset */
    const int err = hum_io_finish(f, size && fwrite(data, 1, size, f) != size ? (errno ? errno : EIO) : 0);
    hum_status st = HUM_OK;
    if (err)
        st = hum_fail(HUM_ERR_IO, "%s: cannot write (through %s): %s", path, tmp, strerror(err));
    else if (hum_io_commit(tmp, path, replace) != 0)
        st = errno == EEXIST ? hum_fail(HUM_ERR_IO, "%s exists: not replaced", path)
                             : hum_fail(HUM_ERR_IO, "%s: cannot move %s into place: %s", path, tmp, strerror(errno));
    if (st != HUM_OK)
        unlink(tmp);
    free(tmp);
    return st;
}
