/* Source files the runtime reads at run time: kernels, Lua modules, formats, built-in policies.
 * Each lives embedded in libhum; a directory named by an environment variable replaces the
 * embedded tree for development without rebuilding:
 *   kernels/...  HUM_KERNEL_PATH     lua/...  HUM_LUA_PATH
 *   formats/...  HUM_FORMAT_PATH     policies/...  HUM_POLICY_PATH (built-in layer only; site
 *   policy files are layered on top by the policy loader, see lua/hum/policy.lua)
 * A variable holds one directory or several separated by ':'; the first that has the file wins,
 * then the embedded copy. */
#ifndef HUM_RESOURCE_H
#define HUM_RESOURCE_H

#include "hum/hum.h"

#include <stddef.h>

typedef struct hum_resource {
    char *data;       /* NUL-terminated; owned (free with hum_resource_free) */
    size_t size;      /* bytes without the terminator */
    char origin[4096]; /* the file path it came from, or "embedded:<relpath>" */
} hum_resource;

/* Reads `relpath` ("kernels/gemm/gemm_mma.cu", "lua/hum/init.lua", ...). HUM_ERR_IO when it exists
 * nowhere (the message names relpath and the directories searched) or cannot be read. */
hum_status hum_resource_read(const char *relpath, hum_resource *out);
void hum_resource_free(hum_resource *r);

/* The override directory list for relpath's top folder (the env var's value), or NULL. */
const char *hum_resource_override(const char *relpath);

#endif
