/* The cache key of a JIT request: XXH3-128 over everything that can change the cubin. */
#ifndef HUM_JIT_KEY_H
#define HUM_JIT_KEY_H

#include "jit_nvrtc.h"

#include <stdint.h>

enum { HUM_JIT_KEY_BYTES = 16, HUM_JIT_KEY_HEX = 33 };

/* Hashes, each length-prefixed so that no two different inputs concatenate alike: a format tag,
 * the NVRTC version, every option, the source's name and text, each header's name and text (in
 * discovery order), the constants text (or its absence), the kernel name and the arch. File
 * contents count, never modification times. */
void hum_jit_key_compute(const hum_jit_sources *src, const hum_nvrtc_options *opts, const hum_jit_request *req,
                         uint8_t key[HUM_JIT_KEY_BYTES]);

/* 32 lowercase hex digits and a NUL. */
void hum_jit_key_hex(const uint8_t key[HUM_JIT_KEY_BYTES], char out[HUM_JIT_KEY_HEX]);

#endif
