/* Device buffers for running one layer: activations A[M, K] and output C[M, N] of a 16-bit
 * dtype, sized for the largest M, and one checked forward (upload, poison, run, download). */
#ifndef HUM_BENCH_IO_H
#define HUM_BENCH_IO_H

#include "hum/hum_tools.h"

typedef struct bench_io {
    hum_dtype dtype; /* float16 or bfloat16 */
    int64_t n, k, m_cap;
    void *a, *c;     /* device memory */
} bench_io;

/* Allocates A and C on device `ordinal` for up to m_cap rows. Errors: those of
 * hum_device_alloc (HUM_ERR_NO_DEVICE, HUM_ERR_OUT_OF_MEMORY). */
hum_status bench_io_create(int32_t ordinal, hum_dtype dtype, int64_t n, int64_t k, int64_t m_cap, bench_io *io);
/* Frees both buffers; safe on a zeroed or partly created one. */
void bench_io_destroy(bench_io *io);
/* Device tensor views of the first m rows of A and C. */
void bench_io_views(const bench_io *io, int64_t m, hum_tensor *a, hum_tensor *c);

/* Uploads a[m][k] (codes of io->dtype), fills C with 0xFF bytes (NaN, so an element the layer
 * does not write is caught), runs hum_layer_forward on the legacy default stream, waits for it
 * and downloads c[m][n]. HUM_ERR_INVALID_ARG when m is outside 1..m_cap. */
hum_status bench_io_forward(bench_io *io, hum_layer *layer, const uint16_t *a, int64_t m, uint16_t *c);

#endif
