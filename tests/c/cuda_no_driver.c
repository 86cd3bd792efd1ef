/* Without a CUDA driver every device call says so (HUM_ERR_NO_DEVICE, "no CUDA driver") and
 * nothing crashes, while NVRTC keeps compiling. HUM_CUDA_DRIVER stands in for the driver. */
#define _GNU_SOURCE
#include "jit_support.h"
#include "selfcheck.h"
#include "tma.h"
#include "launch.h"
#include "device.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void expect_no_driver(hum_status st, const char *call)
{
    JT_CHECK(st == HUM_ERR_NO_DEVICE, "%s returned %s, expected HUM_ERR_NO_DEVICE", call, hum_status_name(st));
    JT_CHECK(strstr(hum_last_error(), "no CUDA driver") != NULL, "%s: message lacks \"no CUDA driver\": %s", call,
             hum_last_error());
}

/* In a child process (the driver loads once per process): HUM_CUDA_DRIVER=library must give
 * HUM_ERR_NO_DEVICE with `words` in the message. */
static void expect_in_child(const char *library, const char *words)
{
    pid_t pid = fork();
    JT_CHECK(pid >= 0, "fork failed");
    if (pid == 0) {
        setenv("HUM_CUDA_DRIVER", library, 1);
        int32_t count = -1;
        hum_status st = hum_device_count(&count);
        if (st != HUM_ERR_NO_DEVICE || count != 0 || !strstr(hum_last_error(), words)) {
            fprintf(stderr, "HUM_CUDA_DRIVER=%s: %s, count %d: %s\n", library, hum_status_name(st), count,
                    hum_last_error());
            _exit(1);
        }
        printf("HUM_CUDA_DRIVER=%s: %s\n", library, hum_last_error());
        fflush(stdout);
        _exit(0);
    }
    int status;
    JT_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
             "HUM_CUDA_DRIVER=%s did not give HUM_ERR_NO_DEVICE with \"%s\"", library, words);
}

int main(void)
{
    /* A library that exists but is no CUDA driver, and the toolkit's link-time stub. */
    expect_in_child("libm.so.6", "no CUDA driver");
    const char *stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
    if (access(stub, R_OK) == 0)
        expect_in_child(stub, "no CUDA driver");

    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    int32_t count = 7;
    expect_no_driver(hum_device_count(&count), "hum_device_count");
    JT_CHECK(count == 0, "count is %d without a driver", count);
    JT_CHECK(strstr(hum_last_error(), "/nonexistent/libcuda.so.1"), "the message should name the library: %s",
             hum_last_error());
    /* The answer is remembered, and given again to every caller. */
    expect_no_driver(hum_device_count(&count), "hum_device_count (again)");
    hum_device_info info;
    expect_no_driver(hum_device_query(0, &info), "hum_device_query");
    void *p = (void *)0x1;
    expect_no_driver(hum_device_alloc(0, 1024, &p), "hum_device_alloc");
    JT_CHECK(p == NULL, "hum_device_alloc left a pointer behind");
    char host[16];
    expect_no_driver(hum_memcpy_dtoh(host, (void *)0x1000, sizeof host), "hum_memcpy_dtoh");
    expect_no_driver(hum_memcpy_htod((void *)0x1000, host, sizeof host), "hum_memcpy_htod");
    expect_no_driver(hum_memset_d8((void *)0x1000, 0, 16), "hum_memset_d8");
    expect_no_driver(hum_device_free((void *)0x1000), "hum_device_free");
    expect_no_driver(hum_stream_synchronize(NULL), "hum_stream_synchronize");
    JT_OK(hum_device_free(NULL));

    /* NVRTC needs no driver: the sm_90a self-check kernel compiles to an sm_90 cubin... */
    char *cache = jt_make_temp_dir("no-driver");
    hum_jit_result compiled;
    JT_OK(hum_selfcheck_compile(cache, "sm_90a", HUM_SELFCHECK_SEED, &compiled));
    JT_CHECK(jt_cubin_is_for(compiled.cubin, compiled.cubin_size, 90), "not an sm_90 cubin");
    /* ...which cannot be loaded here. */
    hum_kernel *k = (hum_kernel *)0x1;
    expect_no_driver(hum_kernel_load(0, &compiled, 0, &k), "hum_kernel_load");
    JT_CHECK(k == NULL, "hum_kernel_load left a kernel behind");
    hum_selfcheck_report report;
    expect_no_driver(hum_selfcheck_run(0, cache, HUM_SELFCHECK_SEED, &report), "hum_selfcheck_run");
    hum_jit_result_free(&compiled);

    /* A TMA map is checked before the driver is asked; a valid one then meets the missing driver. */
    hum_tma_2d tile = {.dtype = HUM_DTYPE_FLOAT16, .global_address = (void *)0x10000, .rows = 4096, .cols = 4096,
                       .row_stride_bytes = 8192, .box_rows = 64, .box_cols = 64, .swizzle = HUM_TMA_SWIZZLE_128B};
    hum_tensor_map map;
    expect_no_driver(hum_tma_encode_2d(&tile, &map), "hum_tma_encode_2d");
    tile.box_cols = 128; /* 256 bytes per box row: more than the 128-byte swizzle span */
    JT_STATUS(hum_tma_encode_2d(&tile, &map), HUM_ERR_INVALID_ARG);

    jt_remove_tree(cache);
    free(cache);
    printf("cuda_no_driver: ok\n");
    return 0;
}
