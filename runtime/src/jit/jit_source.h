/* The text a JIT request compiles: its source and every header it pulls in with
 * `#include "name"`, followed recursively. Kernel headers are named relative to kernels/ and read
 * with hum_resource_read (so HUM_KERNEL_PATH applies); "hum_constants.h" is the request's
 * constants text. A quoted name found in neither place is left to NVRTC's include path (toolkit
 * headers). The scan is textual and conservative: an include inside a comment or a disabled #if
 * branch is still collected, which can only add to the cache key, never miss a dependency. */
#ifndef HUM_JIT_SOURCE_H
#define HUM_JIT_SOURCE_H

#include "hum/hum.h"
#include "resource.h"
#include "jit.h"

typedef struct hum_jit_sources {
    hum_resource source;   /* the request's source file */
    int32_t header_count;  /* in discovery order (depth first), each name once */
    const char **header_names; /* as written between the quotes: what NVRTC matches */
    const char **header_texts;
    size_t *header_sizes;
    hum_resource *header_files; /* owners of header_texts (empty for hum_constants.h) */
} hum_jit_sources;

/* HUM_ERR_IO when the source cannot be read; HUM_ERR_INVALID_ARG for an include that climbs out of
 * kernels/ or names hum_constants.h while the request has no constants. */
hum_status hum_jit_sources_load(const hum_jit_request *req, hum_jit_sources *out);
void hum_jit_sources_free(hum_jit_sources *s);

#endif
