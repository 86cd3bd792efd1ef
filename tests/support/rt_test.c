#define _XOPEN_SOURCE 700 /* mkdtemp, nftw, utimensat */
#include "rt_test.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int rt_failures;

int rt_check_at(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
{
    if (ok)
        return 1;
    rt_failures++;
    fprintf(stderr, "%s:%d: check failed: %s: ", file, line, expr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 0;
}

int rt_expect_error_at(const char *file, int line, const char *what, hum_status got, hum_status want, ...)
{
    const char *msg = hum_last_error();
    int ok = rt_check_at(got == want, file, line, "status", "%s: got %s, expected %s (message: %s)", what,
                         hum_status_name(got), hum_status_name(want), msg);
    va_list ap;
    va_start(ap, want);
    for (const char *s; (s = va_arg(ap, const char *)) != NULL;)
        ok &= rt_check_at(strstr(msg, s) != NULL, file, line, "message", "%s: message lacks \"%s\": %s", what, s, msg);
    va_end(ap);
    return ok;
}

int rt_test_result(const char *test_name)
{
    if (rt_failures == 0) {
        printf("%s: all checks passed\n", test_name);
        return 0;
    }
    printf("%s: %d check(s) failed\n", test_name, rt_failures);
    return 1;
}

void rt_tmpdir(const char *tag, char *out, size_t cap)
{
    const char *base = getenv("TMPDIR");
    snprintf(out, cap, "%s/hum-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    if (!mkdtemp(out)) {
        fprintf(stderr, "rt_tmpdir: mkdtemp %s: %s\n", out, strerror(errno));
        exit(1);
    }
}

static void make_parents(char *path)
{
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
}

const char *rt_write(const char *dir, const char *name, const char *text)
{
    static char paths[8][4096];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, 4096, "%s/%s", dir, name);
    make_parents(path);
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "rt_write: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    return path;
}

hum_status rt_runtime_with_config(const char *dir, const char *yaml, hum_runtime **out)
{
    hum_runtime_options o;
    hum_runtime_options_init(&o);
    o.config_path = rt_write(dir, "hum.yaml", yaml);
    return hum_runtime_create(&o, out);
}

void rt_set_mtime(const char *path, long seconds)
{
    struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
    if (utimensat(AT_FDCWD, path, times, 0) != 0) {
        fprintf(stderr, "rt_set_mtime: %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

void rt_rmtree(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }
