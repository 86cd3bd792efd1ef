#include "jit_key.h"

#include <nvrtc.h>
#include <stdio.h>
#include <string.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

/* Bump when the hashed fields or the cubin-affecting behaviour of the JIT change. */
static const char key_format[] = "hum-jit-key-1";

static void add(XXH3_state_t *state, const void *data, size_t size)
{
    uint64_t len = size;
    XXH3_128bits_update(state, &len, sizeof len);
    if (size)
        XXH3_128bits_update(state, data, size);
}

static void add_string(XXH3_state_t *state, const char *s)
{
    add(state, s, strlen(s));
}

void hum_jit_key_compute(const hum_jit_sources *src, const hum_nvrtc_options *opts, const hum_jit_request *req,
                         uint8_t key[HUM_JIT_KEY_BYTES])
{
    XXH3_state_t state;
    XXH3_INITSTATE(&state);
    XXH3_128bits_reset(&state);
    add_string(&state, key_format);
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    char version[32];
    snprintf(version, sizeof version, "nvrtc %d.%d", major, minor);
    add_string(&state, version);
    for (int32_t i = 0; i < opts->count; i++)
        add_string(&state, opts->list[i]);
    add_string(&state, req->source);
    add(&state, src->source.data, src->source.size);
    for (int32_t i = 0; i < src->header_count; i++) {
        add_string(&state, src->header_names[i]);
        add(&state, src->header_texts[i], src->header_sizes[i]);
    }
    /* Present-but-empty and absent constants differ. */
    add_string(&state, req->constants ? "constants" : "no constants");
    if (req->constants)
        add_string(&state, req->constants);
    add_string(&state, req->kernel_name);
    add_string(&state, req->arch);
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(&state));
    memcpy(key, canonical.digest, HUM_JIT_KEY_BYTES);
}

void hum_jit_key_hex(const uint8_t key[HUM_JIT_KEY_BYTES], char out[HUM_JIT_KEY_HEX])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < HUM_JIT_KEY_BYTES; i++) {
        out[2 * i] = digits[key[i] >> 4];
        out[2 * i + 1] = digits[key[i] & 15];
    }
    out[2 * HUM_JIT_KEY_BYTES] = '\0';
}
