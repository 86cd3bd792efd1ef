/* Files embedded into libhum at build time (kernels/, lua/, policies/, formats/ and the
 * preprocessed hum.h for the LuaJIT FFI), looked up by their path relative to the source tree,
 * e.g. "kernels/selfcheck.cu" or "include/hum_cdef.h". */
#ifndef HUM_EMBED_H
#define HUM_EMBED_H

#include <stddef.h>

typedef struct hum_embedded_file {
    const char *path; /* relative to the project root; NULL ends the table */
    const char *data; /* NUL-terminated */
    long size;        /* bytes, without the terminator */
} hum_embedded_file;

extern const hum_embedded_file hum_embedded_files[];
extern const int hum_embedded_file_count;

/* The embedded file at `path`, or NULL. */
const hum_embedded_file *hum_embedded_find(const char *path);

#endif
