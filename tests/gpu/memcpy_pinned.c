/* With a GPU: hum_memcpy_htod of sources long enough to be page-locked for the copy
 * (runtime/src/cuda/memory.c) lands every byte, read back through hum_memcpy_dtoh, from
 * - malloc'd memory at an offset that is not page-aligned;
 * - a read-only private mapping of a file, as the safetensors reader maps a checkpoint;
 * - memory the host page-locked itself, which the copy must leave locked (the host's own
 *   cuMemHostUnregister succeeds after it);
 * and a source just under the threshold. Skipped (77) without a GPU. */
#define _GNU_SOURCE
#include "hum/hum.h"
#include "hum/hum_tools.h"
#include "rt_test.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { BYTES = (9 << 20) + 12345 };

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (uint8_t)(seed >> 24);
    }
}

/* `n` bytes at `src` to the device and back; whether they match. */
static int round_trip(void *dev, uint8_t *back, const uint8_t *src, size_t n, const char *what)
{
    memset(back, 0, n);
    if (!RT_CHECK(hum_memset_d8(dev, 0xA5, n) == HUM_OK, "%s: %s", what, hum_last_error()) ||
        !RT_CHECK(hum_memcpy_htod(dev, src, n) == HUM_OK, "%s: %s", what, hum_last_error()) ||
        !RT_CHECK(hum_memcpy_dtoh(back, dev, n) == HUM_OK, "%s: %s", what, hum_last_error()))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (back[i] != src[i])
            return RT_CHECK(0, "%s: byte %zu of %zu is %u, expected %u", what, i, n, back[i], src[i]);
    return 1;
}

int main(void)
{
    int32_t count = 0;
    if (hum_device_count(&count) != HUM_OK || count == 0)
        return 77;
    void *dev = NULL;
    uint8_t *host = malloc(BYTES + 64), *back = malloc(BYTES);
    if (!RT_CHECK(host && back, "out of host memory") ||
        !RT_CHECK(hum_device_alloc(0, BYTES, &dev) == HUM_OK, "%s", hum_last_error()))
        goto done;

    fill(host, BYTES + 64, 1);
    round_trip(dev, back, host + 3, BYTES, "malloc'd, offset 3");
    round_trip(dev, back, host + 64, (4 << 20) - 1, "just under the page-locking threshold");

    char path[] = "/tmp/hum-memcpy-pinned-XXXXXX";
    const int fd = mkstemp(path);
    if (RT_CHECK(fd >= 0, "mkstemp") && RT_CHECK(write(fd, host, BYTES + 64) == BYTES + 64, "write %s", path)) {
        uint8_t *map = mmap(NULL, BYTES + 64, PROT_READ, MAP_PRIVATE, fd, 0);
        if (RT_CHECK(map != MAP_FAILED, "mmap %s", path)) {
            round_trip(dev, back, map + 4096 + 7, BYTES - 4096 - 7, "read-only private file mapping");
            munmap(map, BYTES + 64);
        }
    }
    if (fd >= 0) {
        close(fd);
        unlink(path);
    }

    void *reg = NULL, *unreg = NULL;
    if (RT_CHECK(hum_cuda_entry("cuMemHostRegister", 6050, &reg) == HUM_OK, "%s", hum_last_error()) &&
        RT_CHECK(hum_cuda_entry("cuMemHostUnregister", 4000, &unreg) == HUM_OK, "%s", hum_last_error())) {
        const PFN_cuMemHostRegister_v6050 host_register = (PFN_cuMemHostRegister_v6050)reg;
        const PFN_cuMemHostUnregister_v4000 host_unregister = (PFN_cuMemHostUnregister_v4000)unreg;
        fill(host, BYTES + 64, 2);
        if (RT_CHECK(host_register(host, BYTES + 64, 0) == CUDA_SUCCESS, "the host's own cuMemHostRegister")) {
            round_trip(dev, back, host + 64, BYTES, "memory the host page-locked");
            RT_CHECK(host_unregister(host) == CUDA_SUCCESS, "the host's range is still registered after the copy");
        }
    }
done:
    hum_device_free(dev);
    free(host);
    free(back);
    return rt_test_result("memcpy_pinned");
}
