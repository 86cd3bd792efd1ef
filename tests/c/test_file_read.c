/* hum_file_read (runtime/src/io/file_read.c), how `hum tune` reads its --candidates file: a
 * regular file or a pipe arrives whole, bytes and size (NULs and blocks past the first read
 * included); a FIFO nobody writes reads as empty instead of waiting for a writer; a missing
 * file, a directory or a device is HUM_ERR_IO naming the path and why. */
#define _POSIX_C_SOURCE 200809L /* mkfifo */
#include "hum/hum_tools.h"
#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { BIG = 20000 }; /* more than one read's block, less than a pipe's buffer */

static void fill(char *text)
{
    for (int i = 0; i < BIG; i++)
        text[i] = (char)(i % 251); /* NULs among the bytes */
}

/* `path` read whole must be `want` (`size` bytes) and NUL-terminated. */
static void check_reads(const char *what, const char *path, const char *want, size_t size)
{
    char *data = NULL;
    size_t got = 1;
    RT_CHECK(hum_file_read(path, &data, &got) == HUM_OK, "%s: %s", what, hum_last_error());
    RT_CHECK(data && got == size && !memcmp(data, want, size) && data[size] == '\0', "%s: %zu bytes (expected %zu)",
             what, got, size);
    hum_file_free(data);
}

static void test_regular_and_pipe(const char *dir)
{
    static char text[BIG];
    fill(text);
    char path[4200];
    snprintf(path, sizeof path, "%s/cands.lua", dir);
    FILE *f = fopen(path, "wb");
    RT_CHECK(f && fwrite(text, 1, BIG, f) == BIG && fclose(f) == 0, "writing %s", path);
    check_reads("a regular file", path, text, BIG);
    char *data = NULL;
    RT_CHECK(hum_file_read(path, &data, NULL) == HUM_OK && data && !memcmp(data, text, BIG), "no size asked: %s",
             hum_last_error());
    hum_file_free(data);

    int fds[2];
    RT_CHECK(pipe(fds) == 0, "pipe");
    RT_CHECK(write(fds[1], text, BIG) == BIG, "write to the pipe");
    close(fds[1]);
    char through[64];
    snprintf(through, sizeof through, "/dev/fd/%d", fds[0]);
    check_reads("a pipe (<(...))", through, text, BIG);
    close(fds[0]);

    char fifo[4200];
    snprintf(fifo, sizeof fifo, "%s/cands.fifo", dir);
    RT_CHECK(mkfifo(fifo, 0644) == 0, "mkfifo %s", fifo);
    alarm(60); /* an open that waits for a writer fails the test instead of hanging it */
    check_reads("a FIFO nobody writes", fifo, "", 0);
    alarm(0);
}

static void test_refusals(const char *dir)
{
    char missing[4200];
    snprintf(missing, sizeof missing, "%s/none.lua", dir);
    char *data = (char *)"untouched";
    RT_EXPECT_ERROR(hum_file_read(missing, &data, NULL), HUM_ERR_IO, "a missing file", missing,
                    ": No such file or directory");
    RT_CHECK(data == NULL, "no data on failure");
    RT_EXPECT_ERROR(hum_file_read(dir, &data, NULL), HUM_ERR_IO, "a directory", dir, ": is a directory");
    RT_EXPECT_ERROR(hum_file_read("/dev/zero", &data, NULL), HUM_ERR_IO, "a device",
                    "/dev/zero: not a regular file or a pipe");
    RT_EXPECT_ERROR(hum_file_read(NULL, &data, NULL), HUM_ERR_INVALID_ARG, "no path", "NULL path");
    RT_EXPECT_ERROR(hum_file_read(missing, NULL, NULL), HUM_ERR_INVALID_ARG, "no data", "NULL data");
}

int main(void)
{
    char dir[4096];
    rt_tmpdir("file-read", dir, sizeof dir);
    test_regular_and_pipe(dir);
    test_refusals(dir);
    rt_rmtree(dir);
    return rt_test_result("test_file_read");
}
