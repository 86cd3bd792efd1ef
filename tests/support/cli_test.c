/* See cli_test.h. */
#define _POSIX_C_SOURCE 200809L /* popen */
#include "cli_test.h"

#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

char cli_output[32768];

int cli_hum(const char *args)
{
    char command[16384];
    snprintf(command, sizeof command, "%s/runtime/hum %s 2>&1", HUM_BINARY_DIR, args);
    FILE *p = popen(command, "r");
    if (!p) {
        snprintf(cli_output, sizeof cli_output, "cannot run %s", command);
        return -1;
    }
    size_t n = fread(cli_output, 1, sizeof cli_output - 1, p);
    cli_output[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cli_hum_timed(const char *args, double *first_line, double *total)
{
    char command[16384];
    snprintf(command, sizeof command, "%s/runtime/hum %s 2>&1", HUM_BINARY_DIR, args);
    const double start = now_s();
    *first_line = *total = -1;
    FILE *p = popen(command, "r");
    if (!p) {
        snprintf(cli_output, sizeof cli_output, "cannot run %s", command);
        return -1;
    }
    size_t used = 0;
    while (used + 1 < sizeof cli_output && fgets(cli_output + used, (int)(sizeof cli_output - used), p)) {
        if (*first_line < 0)
            *first_line = now_s() - start;
        used += strlen(cli_output + used);
    }
    cli_output[used] = '\0';
    int status = pclose(p);
    *total = now_s() - start;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int cli_count(const char *text)
{
    int c = 0;
    for (const char *p = cli_output; (p = strstr(p, text)) != NULL; p += strlen(text))
        c++;
    return c;
}

void cli_has(const char *what, const char *text)
{
    RT_CHECK(strstr(cli_output, text) != NULL, "%s: output lacks \"%s\":\n%s", what, text, cli_output);
}

void cli_write_checkpoint(const char *dir, const char *layer)
{
    enum { N = 64, K = 256 };
    float *w = malloc(N * K * sizeof *w);
    uint64_t s = 12345;
    for (int i = 0; w && i < N * K; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        w[i] = (float)((double)(s >> 11) * 0x1p-53 - 0.5);
    }
    hum_quant_spec spec = {.weight_dtype = HUM_DTYPE_UINT4, .param_dtype = HUM_DTYPE_FLOAT16,
                           .scale_type = HUM_SCALE_GROUP, .group_size = 128, .zero_point = HUM_ZERO_POINT_NONE};
    hum_standard_weight std = {0};
    RT_CHECK(w && hum_quantize_reference(w, N, K, &spec, &std) == HUM_OK, "quantize: %s", hum_last_error());
    const char *names[] = {layer};
    hum_checkpoint_write_options opts = {0};
    RT_CHECK(hum_checkpoint_write_gptq(dir, names, &std, 1, &opts) == HUM_OK, "write: %s", hum_last_error());
    hum_standard_free(&std);
    free(w);
}

char *cli_slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *size = (size_t)n;
    }
    return buf;
}
