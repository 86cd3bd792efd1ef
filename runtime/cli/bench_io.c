/* Device buffers and one checked forward (see bench_io.h). */
#include "bench_io.h"


#include <string.h>

hum_status bench_io_create(int32_t ordinal, hum_dtype dtype, int64_t n, int64_t k, int64_t m_cap, bench_io *io)
{
    memset(io, 0, sizeof *io);
    io->dtype = dtype;
    io->n = n;
    io->k = k;
    io->m_cap = m_cap;
    hum_status st = hum_device_alloc(ordinal, (size_t)(m_cap * k) * 2, &io->a);
    if (st == HUM_OK)
        st = hum_device_alloc(ordinal, (size_t)(m_cap * n) * 2, &io->c);
    if (st != HUM_OK) {
        bench_io_destroy(io);
        return hum_fail_context(st, "activations and output for M up to %lld (N = %lld, K = %lld)", (long long)m_cap,
                                (long long)n, (long long)k);
    }
    return HUM_OK;
}

void bench_io_destroy(bench_io *io)
{
    hum_device_free(io->a);
    hum_device_free(io->c);
    memset(io, 0, sizeof *io);
}

static void view(void *data, hum_dtype dtype, int64_t rows, int64_t cols, hum_tensor *t)
{
    memset(t, 0, sizeof *t);
    t->data = data;
    t->dtype = dtype;
    t->rank = 2;
    t->shape[0] = rows;
    t->shape[1] = cols;
    t->memory = HUM_MEMORY_DEVICE;
}

void bench_io_views(const bench_io *io, int64_t m, hum_tensor *a, hum_tensor *c)
{
    view(io->a, io->dtype, m, io->k, a);
    view(io->c, io->dtype, m, io->n, c);
}

hum_status bench_io_forward(bench_io *io, hum_layer *layer, const uint16_t *a, int64_t m, uint16_t *c)
{
    if (m < 1 || m > io->m_cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "M = %lld outside the buffers' 1..%lld", (long long)m,
                        (long long)io->m_cap);
    const size_t a_bytes = (size_t)(m * io->k) * 2, c_bytes = (size_t)(m * io->n) * 2;
    hum_tensor at, ct;
    bench_io_views(io, m, &at, &ct);
    hum_status st;
    if ((st = hum_memcpy_htod(io->a, a, a_bytes)) != HUM_OK || (st = hum_memset_d8(io->c, 0xFF, c_bytes)) != HUM_OK ||
        (st = hum_layer_forward(layer, NULL, &at, NULL, &ct)) != HUM_OK ||
        (st = hum_stream_synchronize(NULL)) != HUM_OK || (st = hum_memcpy_dtoh(c, io->c, c_bytes)) != HUM_OK)
        return st;
    return HUM_OK;
}
