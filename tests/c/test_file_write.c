/* hum_file_write (runtime/src/io/file_write.c), how `hum tune` writes its policy and `hum bench`
 * its results: the content arrives whole, with the mode a plain create gives, an existing file is
 * never replaced without `replace` (and is left as it was), a replace swaps the content, and a
 * failure leaves no temporary file behind. */
#define _POSIX_C_SOURCE 200809L /* umask, mode_t */
#include "hum/hum_tools.h"
#include "rt_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *read_all(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

int main(void)
{
    char dir[4096], path[4200], missing[4300];
    rt_tmpdir("file-write", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/tuned.lua", dir);
    snprintf(missing, sizeof missing, "%s/no/such/dir/tuned.lua", dir);

    RT_CHECK(hum_file_write(path, "first\n", 6, 0) == HUM_OK, "%s", hum_last_error());
    const char *got = read_all(path);
    RT_CHECK(got && !strcmp(got, "first\n"), "content '%s'", got ? got : "(unreadable)");
    struct stat sb;
    RT_CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0444) == 0444, "readable by all (mode %o)", (unsigned)sb.st_mode);
    /* the umask decides, as for a plain create (this test runs no other thread) */
    char private_path[4300];
    snprintf(private_path, sizeof private_path, "%s/private.lua", dir);
    const mode_t mask = umask(077);
    RT_CHECK(hum_file_write(private_path, "p\n", 2, 0) == HUM_OK, "%s", hum_last_error());
    umask(mask);
    RT_CHECK(stat(private_path, &sb) == 0 && (sb.st_mode & 0777) == 0600, "umask 077 gives 0600 (mode %o)",
             (unsigned)sb.st_mode & 0777);
    RT_CHECK(unlink(private_path) == 0, "removing %s", private_path);

    RT_EXPECT_ERROR(hum_file_write(path, "second\n", 7, 0), HUM_ERR_IO, "no replace", "tuned.lua exists: not replaced", NULL);
    got = read_all(path);
    RT_CHECK(got && !strcmp(got, "first\n"), "the existing file is untouched: '%s'", got ? got : "(unreadable)");

    RT_CHECK(hum_file_write(path, "second\n", 7, 1) == HUM_OK, "%s", hum_last_error());
    got = read_all(path);
    RT_CHECK(got && !strcmp(got, "second\n"), "replaced: '%s'", got ? got : "(unreadable)");
    RT_CHECK(entries(dir) == 1, "only the file is left in %s (%d entries)", dir, entries(dir));

    /* a FIFO is no file to replace (as root over /dev/null the rename left a regular file) */
    char fifo[4200];
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    if (RT_CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo)) {
        RT_EXPECT_ERROR(hum_file_write(fifo, "x", 1, 1), HUM_ERR_IO, "a FIFO", "pipe exists: not replaced", NULL);
        struct stat at;
        RT_CHECK(lstat(fifo, &at) == 0 && S_ISFIFO(at.st_mode), "the FIFO is still one");
        unlink(fifo);
    }

    RT_EXPECT_ERROR(hum_file_write(missing, "x", 1, 1), HUM_ERR_IO, "missing directory", "no/such/dir");
    RT_EXPECT_ERROR(hum_file_write(NULL, "x", 1, 1), HUM_ERR_INVALID_ARG, "NULL path", "NULL path");
    RT_CHECK(entries(dir) == 1, "nothing left behind by the failures (%d entries)", entries(dir));
    rt_rmtree(dir);
    return rt_test_result("test_file_write");
}
