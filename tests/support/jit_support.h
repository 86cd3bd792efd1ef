/* Helpers for the JIT, cache, driver and launch tests: checks that stop the test with the file,
 * line and hum_last_error(), scratch directories, and small file utilities. */
#ifndef HUM_TEST_JIT_SUPPORT_H
#define HUM_TEST_JIT_SUPPORT_H

#include "hum/hum_tools.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define JT_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n  ", __FILE__, __LINE__, #cond);            \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n  hum_last_error: %s\n", hum_last_error());                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* A call that must return `expected`. */
#define JT_STATUS(call, expected)                                                                  \
    do {                                                                                           \
        hum_status jt_st_ = (call);                                                                \
        JT_CHECK(jt_st_ == (expected), "%s returned %s, expected %s", #call, hum_status_name(jt_st_), \
                 hum_status_name(expected));                                                       \
    } while (0)

#define JT_OK(call) JT_STATUS(call, HUM_OK)

/* A fresh empty directory /tmp/hum-test-<tag>-XXXXXX (malloc'ed path). */
char *jt_make_temp_dir(const char *tag);
/* Removes a directory tree made by the test. */
void jt_remove_tree(const char *path);
/* Writes `text` to dir/name, creating parent directories of name. */
void jt_write_file(const char *dir, const char *name, const char *text);
/* The whole file (malloc'ed, NUL-terminated) or NULL; *size may be NULL. */
char *jt_read_file(const char *path, size_t *size);
/* Overwrites `size` bytes of `path` with `data` (the file becomes exactly that). */
void jt_replace_file(const char *path, const void *data, size_t size);
/* Number of files in `dir` whose names end with `suffix` ("" counts all, dotfiles included). */
int jt_count_files(const char *dir, const char *suffix);
/* Milliseconds from a monotonic clock. */
double jt_now_ms(void);
/* 1 when `cubin` is an NVIDIA CUDA ELF (EM_CUDA) for SM `sm` (e.g. 90 for sm_90a). */
int jt_cubin_is_for(const void *cubin, size_t size, int sm);

#endif
