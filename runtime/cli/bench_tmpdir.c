/* Scratch directories (see bench_tmpdir.h). */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */

#include "bench_tmpdir.h"


#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hum_status bench_tmpdir_create(const char *tag, char *out, size_t cap)
{
    const char *base = getenv("TMPDIR");
    int len = snprintf(out, cap, "%s/hum-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    if (len < 0 || (size_t)len >= cap)
        return hum_fail(HUM_ERR_IO, "temporary directory path for '%s' is too long", tag);
    if (mkdtemp(out) == NULL)
        return hum_fail(HUM_ERR_IO, "cannot create the temporary directory %s: %s", out, strerror(errno));
    return HUM_OK;
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    remove(path);
    return 0;
}

void bench_tmpdir_remove(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
