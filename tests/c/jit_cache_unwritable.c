/* The disk cache is best effort: when it cannot be created, locked or written, hum_jit_compile
 * still returns the kernel NVRTC compiled (a miss, then a memory hit in the same process) and
 * warns on stderr ("hum: warn: ...") instead of failing with HUM_ERR_IO. Tests may run as root,
 * for whom a read-only directory is writable, so the cache is blocked by regular files and
 * directories standing where the cache needs the other kind. */
#define _GNU_SOURCE
#include "cache_memory.h"
#include "jit_support.h"
#include "jit.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp;
static char err_path[4096];
static int saved_stderr = -1;

/* stderr goes to a file while `call` runs, so that the warning can be checked. */
static void capture_stderr(void)
{
    fflush(stderr);
    saved_stderr = dup(2);
    int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    JT_CHECK(saved_stderr >= 0 && fd >= 0, "cannot redirect stderr to %s", err_path);
    dup2(fd, 2);
    close(fd);
}

static char *release_stderr(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    return jt_read_file(err_path, NULL);
}

/* Compiles `req` twice through `cache_dir` (NULL: HUM_CACHE_DIR): a miss that warns naming
 * `blocked` and `needle`, then a memory hit with the same cubin. */
static void compile_twice(const char *cache_dir, const hum_jit_request *req, const char *blocked, const char *needle)
{
    hum_jit_result a, b;
    capture_stderr();
    hum_status st = hum_jit_compile(cache_dir, req, &a);
    char *err = release_stderr();
    JT_CHECK(st == HUM_OK, "%s with the cache at %s: %s", req->kernel_name, blocked, hum_status_name(st));
    JT_CHECK(a.cache_hit == HUM_JIT_MISS && a.cubin && jt_cubin_is_for(a.cubin, a.cubin_size, 80),
             "%s: cache_hit %d, cubin %p", req->kernel_name, a.cache_hit, a.cubin);
    JT_CHECK(err && strncmp(err, "hum: warn: ", 11) == 0 && strstr(err, blocked) && strstr(err, needle) &&
                 strstr(err, req->kernel_name),
             "%s: no warning naming %s and '%s' on stderr: '%s'", req->kernel_name, blocked, needle, err ? err : "");
    free(err);
    JT_OK(hum_jit_compile(cache_dir, req, &b));
    JT_CHECK(b.cache_hit == HUM_JIT_HIT_MEMORY, "%s: second compile: cache_hit %d", req->kernel_name, b.cache_hit);
    JT_CHECK(b.cubin_size == a.cubin_size && memcmp(a.cubin, b.cubin, a.cubin_size) == 0, "memory hit differs");
    hum_jit_result_free(&a);
    hum_jit_result_free(&b);
}

int main(void)
{
    tmp = jt_make_temp_dir("jit-unwritable");
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", tmp);
    char kdir[1024], file[1024], under[1024];
    snprintf(kdir, sizeof kdir, "%s/k", tmp);
    jt_write_file(tmp, "k/fine.cu", "template <int N> __global__ void fine(int *out) { out[0] = N; }\n");
    setenv("HUM_KERNEL_PATH", kdir, 1);
    jt_write_file(tmp, "file", "a regular file\n");
    snprintf(file, sizeof file, "%s/file", tmp);
    snprintf(under, sizeof under, "%s/file/cache", tmp);

    /* HUM_CACHE_DIR below a regular file: no directory can be made. */
    hum_jit_request req = {.source = "kernels/fine.cu", .kernel_name = "fine<1>", .arch = "sm_80"};
    setenv("HUM_CACHE_DIR", under, 1);
    compile_twice(NULL, &req, under, "cannot be created");
    /* HUM_CACHE_DIR is the regular file itself. */
    req.kernel_name = "fine<2>";
    setenv("HUM_CACHE_DIR", file, 1);
    compile_twice(NULL, &req, file, "not a directory");

    /* A usable cache whose lock file cannot be opened (a directory stands there): compiled
     * without the lock, and still stored, so a fresh process would find it on disk. */
    char cache[1024], name[256], path[4096], key[33];
    snprintf(cache, sizeof cache, "%s/cache", tmp);
    req.kernel_name = "fine<3>";
    JT_OK(hum_jit_key(&req, key, sizeof key));
    snprintf(name, sizeof name, "cache/locks/%s.lock/keep", key);
    jt_write_file(tmp, name, "");
    compile_twice(cache, &req, cache, "cannot be locked");
    snprintf(path, sizeof path, "%s/kernels/%s.hum", cache, key);
    struct stat sb;
    JT_CHECK(stat(path, &sb) == 0 && S_ISREG(sb.st_mode), "no entry stored at %s without the lock", path);
    hum_memory_cache_clear();
    hum_jit_result r;
    JT_OK(hum_jit_compile(cache, &req, &r));
    JT_CHECK(r.cache_hit == HUM_JIT_HIT_DISK, "entry stored without the lock: cache_hit %d", r.cache_hit);
    hum_jit_result_free(&r);

    /* An entry that cannot be written (a directory stands where it goes): no entry, no temp
     * file left, and a directory there is never read as an entry. */
    req.kernel_name = "fine<4>";
    JT_OK(hum_jit_key(&req, key, sizeof key));
    snprintf(name, sizeof name, "cache/kernels/%s.hum/keep", key);
    jt_write_file(tmp, name, "");
    compile_twice(cache, &req, cache, "cannot store the kernel");
    snprintf(path, sizeof path, "%s/kernels", cache);
    JT_CHECK(jt_count_files(path, "") == 2,
             "kernels/ holds %d files, expected fine<3>'s entry and the blocking directory", jt_count_files(path, ""));
    hum_memory_cache_clear();
    capture_stderr();
    hum_status st = hum_jit_compile(cache, &req, &r);
    free(release_stderr());
    JT_CHECK(st == HUM_OK && r.cache_hit == HUM_JIT_MISS, "after clearing memory: %s, cache_hit %d",
             hum_status_name(st), r.cache_hit);
    hum_jit_result_free(&r);

    jt_remove_tree(tmp);
    free(tmp);
    printf("jit_cache_unwritable: ok\n");
    return 0;
}
