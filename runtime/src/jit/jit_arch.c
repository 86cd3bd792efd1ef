/* GPU architecture names as NVRTC takes them (--gpu-architecture=sm_90a), and which of them hum
 * compiles for: what this NVRTC supports, from sm_75 on. */
#include "internal.h"

#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MIN_ARCH = 75, MAX_ARCHS = 64 };

static pthread_once_t archs_once = PTHREAD_ONCE_INIT;
static int archs[MAX_ARCHS];
static int arch_count;

static void query_archs(void)
{
    int n = 0;
    if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > MAX_ARCHS)
        return;
    int all[MAX_ARCHS];
    if (nvrtcGetSupportedArchs(all) != NVRTC_SUCCESS)
        return;
    for (int i = 0; i < n; i++)
        if (all[i] >= MIN_ARCH)
            archs[arch_count++] = all[i];
}

/* The "a" (architecture-specific) variant is what hum's sm_90+ kernels are written for
 * (wgmma, setmaxnreg, multicast TMA); requiring it keeps one cache entry per GPU generation. */
static void format_arch(int number, char *out, size_t cap)
{
    snprintf(out, cap, "sm_%d%s", number, number >= 90 ? "a" : "");
}

hum_status hum_nvrtc_version(int32_t *major, int32_t *minor)
{
    if (!major || !minor)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_nvrtc_version: major or minor is NULL");
    int a = 0, b = 0;
    nvrtcResult r = nvrtcVersion(&a, &b);
    if (r != NVRTC_SUCCESS)
        return hum_fail(HUM_ERR_COMPILE, "nvrtcVersion: %s", nvrtcGetErrorString(r));
    *major = a;
    *minor = b;
    return HUM_OK;
}

hum_status hum_arch_check(const char *arch)
{
    pthread_once(&archs_once, query_archs);
    char name[16], accepted[MAX_ARCHS * 10] = "";
    size_t used = 0;
    for (int i = 0; i < arch_count; i++) {
        format_arch(archs[i], name, sizeof name);
        if (arch && strcmp(arch, name) == 0)
            return HUM_OK;
        used += (size_t)snprintf(accepted + used, sizeof accepted - used, "%s%s", i ? ", " : "", name);
    }
    int32_t major = 0, minor = 0;
    hum_nvrtc_version(&major, &minor);
    if (arch_count == 0)
        return hum_fail(HUM_ERR_COMPILE, "NVRTC %d.%d reports no GPU architecture it can compile for", major, minor);
    /* the hint only where the suffix is all that is missing: "sm_90" for sm_90a */
    const char *hint = "";
    char with_a[16];
    if (arch && strncmp(arch, "sm_", 3) == 0 && arch[3] && strspn(arch + 3, "0123456789") == strlen(arch + 3) &&
        snprintf(with_a, sizeof with_a, "%sa", arch) < (int)sizeof with_a)
        for (int i = 0; i < arch_count; i++) {
            format_arch(archs[i], name, sizeof name);
            if (strcmp(with_a, name) == 0)
                hint = " (sm_90 and newer take the 'a' suffix)";
        }
    return hum_fail(HUM_ERR_INVALID_ARG, "GPU architecture '%s'%s: expected one of %s (NVRTC %d.%d)",
                    arch ? arch : "(null)", hint, accepted, major, minor);
}

hum_status hum_arch_list(char *out, size_t cap)
{
    if (!out || !cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_arch_list: NULL out or cap 0");
    pthread_once(&archs_once, query_archs);
    if (arch_count == 0)
        return hum_fail(HUM_ERR_COMPILE, "NVRTC reports no GPU architecture it can compile for");
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < arch_count; i++) {
        char name[16];
        format_arch(archs[i], name, sizeof name);
        int n = snprintf(out + used, cap - used, "%s%s", i ? ", " : "", name);
        if (n < 0 || (size_t)n >= cap - used)
            return hum_fail(HUM_ERR_INVALID_ARG, "hum_arch_list: %zu bytes are too few", cap);
        used += (size_t)n;
    }
    return HUM_OK;
}

hum_status hum_arch_for_device(const hum_device_info *d, char *out, size_t cap)
{
    if (!d || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_arch_for_device: device info or out is NULL");
    if (d->sm_major <= 0 || d->sm_minor < 0 || d->sm_minor > 9)
        return hum_fail(HUM_ERR_INVALID_ARG, "device '%s': compute capability %d.%d is not a valid one", d->name,
                        d->sm_major, d->sm_minor);
    char name[16];
    format_arch(d->sm_major * 10 + d->sm_minor, name, sizeof name);
    if (strlen(name) >= cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_arch_for_device: %zu bytes cannot hold '%s'", cap, name);
    memcpy(out, name, strlen(name) + 1);
    return HUM_OK;
}
