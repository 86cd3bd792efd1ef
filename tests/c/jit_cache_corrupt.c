/* A damaged cache entry is never loaded: it lists as invalid, and the next compile of its key
 * recompiles and replaces it. A FIFO in the entry's place is one too. */
#define _GNU_SOURCE
#include "cache_memory.h"
#include "jit_support.h"

#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char *cache;
static uint32_t seed;
static hum_jit_result original;
static char entry_path[4096];

static int listed_valid(void)
{
    hum_cache_entry *entries;
    int32_t count;
    JT_OK(hum_cache_list(cache, &entries, &count));
    JT_CHECK(count == 1, "cache lists %d entries, expected 1", count);
    int valid = entries[0].valid;
    hum_cache_list_free(entries);
    return valid;
}

/* Installs `data` as the entry, then checks that the next compile recompiles and heals it. */
static void expect_recompile(const char *what, const void *data, size_t size)
{
    jt_replace_file(entry_path, data, size);
    JT_CHECK(!listed_valid(), "%s: the damaged entry lists as valid", what);
    hum_memory_cache_clear();
    hum_jit_result r;
    JT_OK(hum_selfcheck_compile(cache, "sm_90a", seed, &r));
    JT_CHECK(r.cache_hit == HUM_JIT_MISS, "%s: the entry was used (cache_hit %d)", what, r.cache_hit);
    JT_CHECK(r.cubin_size == original.cubin_size && memcmp(r.cubin, original.cubin, r.cubin_size) == 0 &&
                 strcmp(r.lowered_name, original.lowered_name) == 0,
             "%s: the recompiled kernel differs from the original", what);
    JT_CHECK(listed_valid(), "%s: the entry was not replaced by a valid one", what);
    hum_jit_result_free(&r);
}

int main(void)
{
    cache = jt_make_temp_dir("jit-corrupt");
    seed = (uint32_t)time(NULL) ^ 0xc0ffee;
    JT_OK(hum_selfcheck_compile(cache, "sm_90a", seed, &original));
    snprintf(entry_path, sizeof entry_path, "%s/kernels/%s.hum", cache, original.key);
    size_t size;
    char *good = jt_read_file(entry_path, &size);
    JT_CHECK(good && size > original.cubin_size + 76, "entry %s missing or short", entry_path);
    JT_CHECK(listed_valid(), "the fresh entry lists as invalid");

    char *bad = malloc(size);
    JT_CHECK(bad != NULL, "out of memory");
    const struct {
        const char *what;
        size_t at;
    } flips[] = {
        {"a flipped byte at the end of the cubin", size - 1},
        {"a flipped byte in the middle of the cubin", size - original.cubin_size / 2},
        {"a flipped byte in the magic", 0},
        {"a flipped byte in the key", 12},
        {"a flipped byte in the cubin size", 52},
        {"a flipped byte in the payload checksum", 60},
        {"a flipped byte in the header checksum", 68},
    };
    for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
        memcpy(bad, good, size);
        bad[flips[i].at] ^= 0x10;
        expect_recompile(flips[i].what, bad, size);
    }
    expect_recompile("an entry truncated to half", good, size / 2);
    expect_recompile("an entry cut one byte short", good, size - 1);
    expect_recompile("an entry shorter than its header", good, 10);
    expect_recompile("an empty entry", good, 0);
    char *longer = malloc(size + 1);
    JT_CHECK(longer != NULL, "out of memory");
    memcpy(longer, good, size);
    longer[size] = 'x';
    expect_recompile("an entry with a trailing byte", longer, size + 1);

    /* A FIFO where the entry belongs is no entry: reading it must not wait for a writer (an
     * open() without O_NONBLOCK blocked there for good; SIGALRM ends such a run) */
    alarm(60);
    JT_CHECK(unlink(entry_path) == 0 && mkfifo(entry_path, 0644) == 0, "cannot make a FIFO at %s", entry_path);
    JT_CHECK(!listed_valid(), "a FIFO lists as a valid entry");
    hum_memory_cache_clear();
    hum_jit_result healed;
    JT_OK(hum_selfcheck_compile(cache, "sm_90a", seed, &healed));
    JT_CHECK(healed.cache_hit == HUM_JIT_MISS, "a FIFO was used as the entry (cache_hit %d)", healed.cache_hit);
    JT_CHECK(listed_valid(), "the FIFO was not replaced by a valid entry");
    hum_jit_result_free(&healed);
    alarm(0);

    /* An intact entry of another kernel, copied under this key's name, is not this kernel. */
    hum_jit_result other, r;
    JT_OK(hum_selfcheck_compile(cache, "sm_90a", seed + 1, &other));
    char other_path[4096];
    snprintf(other_path, sizeof other_path, "%s/kernels/%s.hum", cache, other.key);
    size_t other_size;
    char *other_entry = jt_read_file(other_path, &other_size);
    JT_CHECK(other_entry != NULL, "no entry for the second kernel");
    jt_replace_file(entry_path, other_entry, other_size);
    hum_memory_cache_clear();
    JT_OK(hum_selfcheck_compile(cache, "sm_90a", seed, &r));
    JT_CHECK(r.cache_hit == HUM_JIT_MISS && r.cubin_size == original.cubin_size &&
                 memcmp(r.cubin, original.cubin, r.cubin_size) == 0,
             "an entry filed under the wrong key was loaded");
    hum_jit_result_free(&r);

    free(other_entry);
    free(longer);
    free(bad);
    free(good);
    hum_jit_result_free(&other);
    hum_jit_result_free(&original);
    jt_remove_tree(cache);
    free(cache);
    printf("jit_cache_corrupt: ok\n");
    return 0;
}
