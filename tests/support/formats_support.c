#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "formats_support.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fmt_failures = 0;

void fmt_report(const char *file, int line, const char *cond)
{
    fmt_failures++;
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, cond);
}

void fmt_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("    ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

char *fmt_tmpdir(const char *tag)
{
    const char *base = getenv("TMPDIR");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/hum-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    if (!mkdtemp(buf)) {
        perror("mkdtemp");
        exit(1);
    }
    return strdup(buf);
}

void fmt_rmtree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
            fmt_rmtree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

const char *fmt_path(const char *dir, const char *name)
{
    static char bufs[4][4096];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

int fmt_write_bytes(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = size == 0 || fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok ? 0 : -1;
}

int fmt_write_text(const char *path, const char *text) { return fmt_write_bytes(path, text, strlen(text)); }

unsigned char *fmt_read_bytes(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b)
        *size = (size_t)n;
    return b;
}

int fmt_expect_error(hum_status got, hum_status want, const char *what, ...)
{
    int ok = got == want;
    const char *msg = hum_last_error();
    va_list ap;
    va_start(ap, what);
    for (const char *needle; ok && (needle = va_arg(ap, const char *));)
        ok = strstr(msg, needle) != NULL;
    va_end(ap);
    if (!ok) {
        fmt_failures++;
        fprintf(stderr, "%s: expected %s, got %s: \"%s\"\n", what, hum_status_name(want), hum_status_name(got), msg);
    }
    return ok;
}

int fmt_finish(const char *test)
{
    if (fmt_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", test, fmt_failures);
        return 1;
    }
    printf("%s: all checks passed\n", test);
    return 0;
}

unsigned long long fmt_rand(fmt_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

long long fmt_rand_range(fmt_rng *r, long long lo, long long hi)
{
    return lo + (long long)(fmt_rand(r) % (unsigned long long)(hi - lo + 1));
}

double fmt_rand_double(fmt_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * (double)(fmt_rand(r) >> 11) / 9007199254740992.0;
}

static hum_runtime *runtime;

hum_runtime *fmt_runtime(void)
{
    if (!runtime && hum_runtime_create(NULL, &runtime) != HUM_OK) {
        fprintf(stderr, "hum_runtime_create: %s\n", hum_last_error());
        exit(1);
    }
    return runtime;
}

void fmt_runtime_destroy(void)
{
    hum_runtime_destroy(runtime);
    runtime = NULL;
}

hum_status fmt_load(const char *dir, const char *layer, hum_standard_weight *w)
{
    memset(w, 0, sizeof *w);
    return hum_layer_load_standard(fmt_runtime(), dir, layer, w);
}

double *fmt_dequant(const hum_standard_weight *w, int64_t expert)
{
    double *out = malloc(sizeof *out * (size_t)(w->n * w->k));
    if (hum_reference_dequant(w, expert, out) != HUM_OK) {
        fmt_failures++;
        fprintf(stderr, "hum_reference_dequant: %s\n", hum_last_error());
        free(out);
        return NULL;
    }
    return out;
}

int64_t fmt_compare(const double *got, const double *want, int64_t count, double rel_tol, const char *what)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < count; i++) {
        double d = got[i] - want[i];
        int ok = rel_tol == 0 ? (got[i] == want[i] || (got[i] != got[i] && want[i] != want[i]))
                              : fabs(d) <= rel_tol * fabs(want[i]);
        if (!ok && bad++ < 5)
            fprintf(stderr, "%s: element %lld: got %.17g, want %.17g\n", what, (long long)i, got[i], want[i]);
    }
    if (bad) {
        fmt_failures++;
        fprintf(stderr, "%s: %lld of %lld elements differ\n", what, (long long)bad, (long long)count);
    }
    return bad;
}

hum_status fmt_list(const char *dir, hum_layer_list *out)
{
    memset(out, 0, sizeof *out);
    hum_checkpoint *ck = NULL;
    hum_status s = hum_checkpoint_open(dir, &ck);
    if (s == HUM_OK)
        s = hum_checkpoint_list_layers(fmt_runtime(), ck, out);
    hum_checkpoint_close(ck);
    return s;
}
