/* Option values shared by `hum run`, `hum bench` and `hum demo`. */
#ifndef HUM_BENCH_ARGS_H
#define HUM_BENCH_ARGS_H

#include "hum/hum_tools.h"

enum { BENCH_MAX_M_VALUES = 64 };

/* Parses a comma-separated list of M values ("1,16,128,1000"): each a decimal integer in
 * 1..2^31-1, at most `cap`. HUM_ERR_INVALID_ARG quoting the offending entry. */
hum_status bench_parse_m_list(const char *text, int64_t *values, int32_t cap, int32_t *count);

/* A count option (--warmup, --reps): plain decimal digits, minimum..100000; `fallback` when
 * text is NULL. Returns 0, or 2 (the usage-error exit code) after saying on stderr, as
 * "<command>: <name> '<text>' (expected ...)", what is wrong. */
int bench_parse_count(const char *command, const char *name, const char *text, int32_t fallback, int32_t minimum,
                      int32_t *out);

/* float16 or bfloat16 from a name hum_dtype_parse accepts ("float16", "fp16", "bf16", ...);
 * HUM_ERR_INVALID_ARG naming it for anything else. */
hum_status bench_parse_activation(const char *text, hum_dtype *out);

#endif
