/* Scratch directories of the GEMM commands: the cold kernel cache of `hum bench`, the
 * checkpoint `hum demo` builds. */
#ifndef HUM_BENCH_TMPDIR_H
#define HUM_BENCH_TMPDIR_H

#include "hum/hum_tools.h"

#include <stddef.h>

/* Creates a fresh directory $TMPDIR/hum-<tag>-XXXXXX (/tmp without TMPDIR) and writes its
 * path to out. HUM_ERR_IO naming the path on failure. */
hum_status bench_tmpdir_create(const char *tag, char *out, size_t cap);
/* Removes the directory and everything under it (symbolic links are removed, not followed). */
void bench_tmpdir_remove(const char *path);

#endif
