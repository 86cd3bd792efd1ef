/* hum_jit_compile: memory cache, then disk cache, then NVRTC under the key's file lock. */
#include "cache_disk.h"
#include "cache_memory.h"
#include "internal.h"
#include "jit.h"
#include "jit_key.h"
#include "jit_nvrtc.h"
#include "jit_source.h"
#include "log.h"
#include "threadpool.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static hum_status check_request(const hum_jit_request *req)
{
    if (!req)
        return hum_fail(HUM_ERR_INVALID_ARG, "JIT request is NULL");
    if (!req->source || !*req->source)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "JIT request: source is empty (expected a path like kernels/gemm/gemm_mma.cu)");
    if (!req->kernel_name || !*req->kernel_name)
        return hum_fail(HUM_ERR_INVALID_ARG, "JIT request for %s: kernel_name is empty", req->source);
    hum_status st = hum_arch_check(req->arch);
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "JIT request for %s", req->source);
}

static hum_status resolve_dir(const char *cache_dir, char *dir, size_t cap)
{
    if (!cache_dir || !*cache_dir)
        return hum_cache_default_dir(dir, cap);
    if (strlen(cache_dir) >= cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "cache directory path is longer than %zu bytes", cap - 1);
    memcpy(dir, cache_dir, strlen(cache_dir) + 1);
    return HUM_OK;
}

/* The line of an NVRTC log that names the first error, without its newline. */
static void first_error(const char *log, char *out, size_t cap)
{
    const char *line = log ? strstr(log, "error") : NULL;
    out[0] = '\0';
    if (!line)
        return;
    while (line > log && line[-1] != '\n')
        line--;
    size_t len = strcspn(line, "\r\n");
    snprintf(out, cap, "%.*s", (int)(len < cap ? len : cap - 1), line);
}

/* "; sources from HUM_KERNEL_PATH: /dev/kernels/gemm/gemm_mma.cu, ..." when any source or header was read
 * from an override directory (the log names the embedded path, which is not the file that
 * failed), else "". */
static void override_note(const hum_jit_sources *src, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (int32_t i = -1; i < src->header_count && used < cap; i++) {
        const char *origin = i < 0 ? src->source.origin : src->header_files[i].origin;
        if (!origin[0] || !strncmp(origin, "embedded:", 9))
            continue;
        int n = snprintf(out + used, cap - used, "%s%s", used ? ", " : "; sources from HUM_KERNEL_PATH: ", origin);
        used += n > 0 ? (size_t)n : 0;
    }
}

/* The text of a compile's log file: the source (and the override files read), kernel, arch,
 * options and constants (hum_constants.h: the tile, types and shapes that tell a family's
 * kernels apart), then NVRTC's log; NULL when out of memory. */
static char *log_text(const hum_jit_request *req, const hum_jit_sources *src, const hum_nvrtc_options *opts,
                      const char *log)
{
    char overrides[1024];
    override_note(src, overrides, sizeof overrides);
    const char *constants = req->constants ? req->constants : "(none)\n";
    size_t cap = strlen(log ? log : "(NVRTC gave no log)\n") + strlen(overrides) + strlen(req->source) +
                 strlen(req->kernel_name) + strlen(req->arch) + strlen(constants) + 128;
    for (int32_t i = 0; i < opts->count; i++)
        cap += strlen(opts->list[i]) + 1;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    int n = snprintf(text, cap, "source: %s%s\nkernel: %s\narch: %s\noptions:", req->source, overrides,
                     req->kernel_name, req->arch);
    for (int32_t i = 0; i < opts->count && n > 0 && (size_t)n < cap; i++)
        n += snprintf(text + n, cap - (size_t)n, " %s", opts->list[i]);
    if (n > 0 && (size_t)n < cap)
        snprintf(text + n, cap - (size_t)n, "\nconstants:\n%s\n%s", constants, log ? log : "(NVRTC gave no log)\n");
    return text;
}

/* Saves the NVRTC log under the cache and turns the failure into a message that names it. */
static hum_status report_compile_error(const char *dir, const char *keyhex, const hum_jit_request *req,
                                       const hum_jit_sources *src, const hum_nvrtc_options *opts, const char *log)
{
    char reason[512], first[512], path[PATH_MAX], overrides[1024];
    snprintf(reason, sizeof reason, "%s", hum_last_error());
    first_error(log, first, sizeof first);
    override_note(src, overrides, sizeof overrides);
    char *text = log_text(req, src, opts, log);
    if (!text)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "compiling %s for %s failed (%s) and its log could not be kept",
                        req->source, req->arch, reason);
    hum_status saved = hum_cache_save_log(dir, keyhex, text, path, sizeof path);
    free(text);
    if (saved != HUM_OK) {
        /* hum_fail formats into the thread's error buffer, so the save's message in that same
         * buffer must be copied out first: passing hum_last_error() itself as a %s argument
         * would read the buffer while vsnprintf overwrites it (undefined, garbled text). */
        char why[512];
        snprintf(why, sizeof why, "%s", hum_last_error());
        return hum_fail(HUM_ERR_COMPILE,
                        "compiling %s (kernel '%s') for %s failed: %s%s%s%s; the NVRTC log could not be saved (%s)",
                        req->source, req->kernel_name, req->arch, reason, first[0] ? ": " : "", first, overrides, why);
    }
    return hum_fail(HUM_ERR_COMPILE, "compiling %s (kernel '%s') for %s failed: %s%s%s%s; NVRTC log: %s%s", req->source,
                    req->kernel_name, req->arch, reason, first[0] ? ": " : "", first, overrides, path,
                    opts->has_cuda_include ? ""
                                           : " (no CUDA include directory was found: set CUDA_HOME to the toolkit)");
}

/* HUM_PTXAS_REPORT set (not empty, not "0"): compiles ask ptxas for its report (registers, spills,
 * serialized wgmma and other performance notices) and keep it, like a failure's log, under the
 * cache's logs/. The option changes no code (the cubin's ELF note records it), so it stays out of
 * the key: cached kernels load as they are, and only a compile (a cache miss) reports. */
static int ptxas_report_wanted(void)
{
    const char *v = getenv("HUM_PTXAS_REPORT");
    return v && *v && strcmp(v, "0") != 0;
}

/* Whether a line of NVRTC's log is ptxas's on registers, spills, a warning or a performance notice
 * ("(C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized ..."). */
static int report_line(const char *line)
{
    return strstr(line, "ptxas") && (strstr(line, "registers") || strstr(line, "spill") ||
                                     strstr(line, "warning") || strstr(line, "(C7"));
}

/* Keeps a successful compile's report (ptxas_report_wanted) under the cache's logs/ and names it
 * on stderr, in one message (compiles run in parallel threads), with ptxas's report_line lines
 * (the file keeps the whole log, NVRTC's own warnings and the constants too); printed whatever the
 * deployment's log_level, since the environment asked for it. A report that cannot be saved only
 * warns (the kernel is fine). */
static void keep_report(const char *dir, const char *keyhex, const hum_jit_request *req, const hum_jit_sources *src,
                        const hum_nvrtc_options *opts, const char *log)
{
    char path[PATH_MAX];
    char *text = log_text(req, src, opts, log);
    hum_status st = text ? hum_cache_save_log(dir, keyhex, text, path, sizeof path)
                         : hum_fail(HUM_ERR_OUT_OF_MEMORY, "no memory for the report's text");
    free(text);
    if (st != HUM_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", hum_last_error());
        hum_log_message(HUM_LOG_WARN, HUM_LOG_WARN, "ptxas report of %s (kernel '%s') for %s not kept: %s",
                        req->source, req->kernel_name, req->arch, why);
        return;
    }
    char lines[4096];
    size_t used = 0;
    lines[0] = '\0';
    for (const char *line = log; line && *line && used < sizeof lines;) {
        const size_t len = strcspn(line, "\n");
        char one[512];
        snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one ? len : sizeof one - 1), line);
        if (report_line(one)) {
            const int n = snprintf(lines + used, sizeof lines - used, "\n  %s", one);
            used += n > 0 ? (size_t)n : 0;
        }
        line += len + (line[len] == '\n');
    }
    hum_log_message(HUM_LOG_INFO, HUM_LOG_INFO, "ptxas report of %s (kernel '%s') for %s: %s%s", req->source,
                    req->kernel_name, req->arch, path, lines);
}

/* The disk cache is an optimisation: when it cannot be used (read-only HOME, full disk, a
 * HUM_CACHE_DIR that is a file), the kernel is still compiled and returned, and this warns
 * instead of failing. `what` says which step failed; hum_last_error() holds why (the log
 * formats into its own buffer, so passing it is safe). No runtime here: the line goes out at
 * the default level, warn. */
static void warn_disk_cache(const char *dir, const hum_jit_request *req, const char *what)
{
    hum_log_message(HUM_LOG_WARN, HUM_LOG_WARN,
                    "kernel cache %s %s: %s; %s (kernel '%s') for %s is not cached on disk", dir, what,
                    hum_last_error(), req->source, req->kernel_name, req->arch);
}

/* Disk lookup, then compile and store, all under the key's lock so that one process compiles
 * while the others wait and then read its entry. Any failure of the disk cache itself only
 * warns (warn_disk_cache); a corrupt entry still never loads (hum_cache_load checks it). */
static hum_status compile_locked(const char *dir, const uint8_t key[HUM_JIT_KEY_BYTES], const char *keyhex,
                                 const hum_jit_request *req, const hum_jit_sources *src,
                                 const hum_nvrtc_options *opts, hum_jit_result *out)
{
    int fd = -1, usable = 1;
    hum_status st = HUM_OK;
    if (hum_cache_prepare(dir) != HUM_OK) {
        warn_disk_cache(dir, req, "cannot be created");
        usable = 0;
    } else if (hum_cache_lock(dir, keyhex, &fd) != HUM_OK) {
        /* Without the lock another process may compile the same kernel at the same time; that
         * costs time, not correctness, since entries are written by temp file + rename. */
        warn_disk_cache(dir, req, "cannot be locked");
        fd = -1;
    }
    int found = usable ? hum_cache_load(dir, key, &out->cubin, &out->cubin_size, out->lowered_name,
                                        sizeof out->lowered_name)
                       : 0;
    if (found < 0) {
        st = HUM_ERR_OUT_OF_MEMORY;
    } else if (found) {
        out->cache_hit = HUM_JIT_HIT_DISK;
    } else {
        char *log = NULL;
        st = hum_nvrtc_compile(src, req, opts, &out->cubin, &out->cubin_size, out->lowered_name,
                               sizeof out->lowered_name, &log);
        if (st == HUM_ERR_COMPILE)
            st = report_compile_error(dir, keyhex, req, src, opts, log);
        else if (st == HUM_OK && usable &&
                 hum_cache_store(dir, key, req->arch, req->kernel_name, out->lowered_name, out->cubin,
                                 out->cubin_size) != HUM_OK)
            warn_disk_cache(dir, req, "cannot store the kernel");
        if (st == HUM_OK && usable && opts->ptxas_report)
            keep_report(dir, keyhex, req, src, opts, log);
        free(log);
        out->cache_hit = HUM_JIT_MISS;
    }
    if (fd >= 0)
        hum_cache_unlock(fd);
    return st;
}

hum_status hum_jit_compile(const char *cache_dir, const hum_jit_request *req, hum_jit_result *out)
{
    if (!out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_jit_compile: out is NULL");
    memset(out, 0, sizeof *out);
    double start = now_ms();
    char dir[PATH_MAX];
    hum_status st = check_request(req);
    if (st != HUM_OK || (st = resolve_dir(cache_dir, dir, sizeof dir)) != HUM_OK)
        return st;
    hum_jit_sources src;
    if ((st = hum_jit_sources_load(req, &src)) != HUM_OK)
        return st;
    hum_nvrtc_options opts;
    hum_nvrtc_options_make(req, &opts);
    uint8_t key[HUM_JIT_KEY_BYTES];
    hum_jit_key_compute(&src, &opts, req, key);
    hum_jit_key_hex(key, out->key);
    if (ptxas_report_wanted())
        hum_nvrtc_options_report(&opts);

    int found = hum_memory_cache_get(key, &out->cubin, &out->cubin_size, out->lowered_name, sizeof out->lowered_name);
    if (found > 0) {
        out->cache_hit = HUM_JIT_HIT_MEMORY;
    } else if (found == 0) {
        /* Entries only ever appear by rename, so an unlocked read sees a whole file or none. */
        found = hum_cache_load(dir, key, &out->cubin, &out->cubin_size, out->lowered_name, sizeof out->lowered_name);
        if (found > 0)
            out->cache_hit = HUM_JIT_HIT_DISK;
        else if (found == 0)
            st = compile_locked(dir, key, out->key, req, &src, &opts, out);
        if (found >= 0 && st == HUM_OK)
            st = hum_memory_cache_put(key, out->cubin, out->cubin_size, out->lowered_name);
    }
    if (found < 0)
        st = HUM_ERR_OUT_OF_MEMORY;
    hum_jit_sources_free(&src);
    if (st != HUM_OK) {
        hum_jit_result_free(out);
        return st;
    }
    out->milliseconds = now_ms() - start;
    return HUM_OK;
}

typedef struct batch {
    const char *cache_dir;
    const hum_jit_request *reqs;
    hum_jit_result *out;
    hum_status *status;
    char **message; /* the failing call's hum_last_error(), from its worker thread */
    int32_t *order; /* the requests in the order they start */
} batch;

static void compile_one(void *ctx, int32_t n)
{
    batch *b = ctx;
    const int32_t i = b->order[n];
    b->status[i] = hum_jit_compile(b->cache_dir, &b->reqs[i], &b->out[i]);
    if (b->status[i] != HUM_OK)
        b->message[i] = strdup(hum_last_error());
}

/* order[] = 0..count-1 by descending cost, ties in request order (an insertion sort: a batch is
 * a layer's table or a tuning's candidates, tens of requests at most). */
static void order_by_cost(const hum_jit_request *reqs, int32_t count, int32_t *order)
{
    for (int32_t i = 0; i < count; i++) {
        int32_t j = i;
        for (; j > 0 && reqs[order[j - 1]].cost < reqs[i].cost; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
}

hum_status hum_jit_compile_many(const char *cache_dir, const hum_jit_request *reqs, int32_t count,
                                hum_jit_result *out, int32_t threads)
{
    if (count < 0 || (count > 0 && (!reqs || !out)))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_jit_compile_many: expected count >= 0 and non-NULL reqs and out");
    if (count == 0)
        return HUM_OK;
    memset(out, 0, (size_t)count * sizeof *out);
    batch b = {cache_dir, reqs, out, calloc((size_t)count, sizeof(hum_status)), calloc((size_t)count, sizeof(char *)),
               calloc((size_t)count, sizeof(int32_t))};
    if (!b.status || !b.message || !b.order) {
        free(b.status);
        free(b.message);
        free(b.order);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_jit_compile_many: out of memory for %d requests", count);
    }
    order_by_cost(reqs, count, b.order);
    hum_parallel_for(count, threads, compile_one, &b);
    hum_status st = HUM_OK;
    for (int32_t i = 0; i < count; i++) {
        if (b.status[i] != HUM_OK && st == HUM_OK) {
            const hum_jit_request *r = &reqs[i];
            st = hum_fail(b.status[i], "request %d of %d (%s, kernel '%s', %s): %s", i, count,
                          r->source ? r->source : "(null)", r->kernel_name ? r->kernel_name : "(null)",
                          r->arch ? r->arch : "(null)", b.message[i] ? b.message[i] : "out of memory");
        }
        free(b.message[i]);
    }
    if (st != HUM_OK)
        for (int32_t i = 0; i < count; i++)
            hum_jit_result_free(&out[i]);
    free(b.status);
    free(b.message);
    free(b.order);
    return st;
}

void hum_jit_result_free(hum_jit_result *r)
{
    if (!r)
        return;
    free(r->cubin);
    memset(r, 0, sizeof *r);
}

hum_status hum_jit_key(const hum_jit_request *req, char *out, size_t cap)
{
    if (!out || cap < HUM_JIT_KEY_HEX)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_jit_key: out must hold %d bytes", HUM_JIT_KEY_HEX);
    hum_status st = check_request(req);
    hum_jit_sources src;
    if (st != HUM_OK || (st = hum_jit_sources_load(req, &src)) != HUM_OK)
        return st;
    hum_nvrtc_options opts;
    hum_nvrtc_options_make(req, &opts);
    uint8_t key[HUM_JIT_KEY_BYTES];
    hum_jit_key_compute(&src, &opts, req, key);
    hum_jit_sources_free(&src);
    hum_jit_key_hex(key, out);
    return HUM_OK;
}
