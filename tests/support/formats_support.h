/* Helpers for the formats tests: scratch directories, raw file writing, checks on hum_status
 * and hum_last_error(). */
#ifndef HUM_FORMATS_SUPPORT_H
#define HUM_FORMATS_SUPPORT_H

#include "hum/hum_tools.h"

#include <stddef.h>

extern int fmt_failures;

#define FMT_CHECK(cond, ...)                                                                                   \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fmt_report(__FILE__, __LINE__, #cond);                                                             \
            fmt_note(__VA_ARGS__);                                                                             \
        }                                                                                                      \
    } while (0)

void fmt_report(const char *file, int line, const char *cond);
void fmt_note(const char *fmt, ...);

/* A fresh directory under $TMPDIR (or /tmp); aborts the test on failure. Caller frees. */
char *fmt_tmpdir(const char *tag);
/* Removes a directory tree made by fmt_tmpdir. */
void fmt_rmtree(const char *dir);
/* dir + "/" + name in a static rotating buffer (valid for the next few calls). */
const char *fmt_path(const char *dir, const char *name);
int fmt_write_bytes(const char *path, const void *data, size_t size);
int fmt_write_text(const char *path, const char *text);
/* A whole file, malloc'ed; *size gets its length. NULL on error. */
unsigned char *fmt_read_bytes(const char *path, size_t *size);

/* Checks that `got` is `want` and that hum_last_error() contains every needle (NULL-terminated
 * list); reports `what` on failure. Returns 1 when it held. */
int fmt_expect_error(hum_status got, hum_status want, const char *what, ...);
#define FMT_EXPECT_ERROR(got, want, what, ...) fmt_expect_error(got, want, what, __VA_ARGS__, (const char *)0)

/* Ends a test: prints a summary, returns the exit code. */
int fmt_finish(const char *test);

/* Deterministic generator for fixture data (xorshift64*). */
typedef struct fmt_rng {
    unsigned long long s;
} fmt_rng;
unsigned long long fmt_rand(fmt_rng *r);
/* Uniform integer in [lo, hi]. */
long long fmt_rand_range(fmt_rng *r, long long lo, long long hi);
/* Uniform double in [lo, hi). */
double fmt_rand_double(fmt_rng *r, double lo, double hi);

#endif

/* --- loading through the runtime ------------------------------------------------------------ */

/* One runtime for the whole test (CPU only is fine); created on first use. */
hum_runtime *fmt_runtime(void);
void fmt_runtime_destroy(void);
/* Loads `layer` of the checkpoint at `dir`; returns the status (message in hum_last_error()). */
hum_status fmt_load(const char *dir, const char *layer, hum_standard_weight *w);
/* The dequantized weight of `expert` (float64 [N][K], checkpoint column order), malloc'ed;
 * NULL (and a reported failure) when hum_reference_dequant fails. */
double *fmt_dequant(const hum_standard_weight *w, int64_t expert);
/* Exact comparison of `count` doubles; reports the first mismatches under `what`. Returns the
 * number of mismatches. rel_tol 0 means bit-exact equality. */
int64_t fmt_compare(const double *got, const double *want, int64_t count, double rel_tol, const char *what);
/* The listing of the checkpoint at `dir` (caller frees with hum_layer_list_free). */
hum_status fmt_list(const char *dir, hum_layer_list *out);
