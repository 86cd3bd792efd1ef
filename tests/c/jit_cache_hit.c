/* A kernel compiled once is served from memory, then, as a fresh process sees it, from disk in
 * well under 50 ms; the listing and clearing of the cache see the entry. */
#define _GNU_SOURCE
#include "cache_memory.h"
#include "jit_support.h"

#include <string.h>
#include <time.h>

int main(void)
{
    char *cache = jt_make_temp_dir("jit-hit");
    uint32_t seed = (uint32_t)time(NULL) ^ 0x5eed;

    hum_jit_result first, again, disk;
    JT_OK(hum_selfcheck_compile(cache, "sm_90a", seed, &first));
    JT_CHECK(first.cache_hit == HUM_JIT_MISS, "a fresh cache gave cache_hit %d", first.cache_hit);
    JT_CHECK(jt_cubin_is_for(first.cubin, first.cubin_size, 90), "not an sm_90 cubin");
    JT_CHECK(strncmp(first.lowered_name, "_Z", 2) == 0 && strstr(first.lowered_name, "hum_selfcheck"),
             "lowered name '%s' is not the mangled template instance", first.lowered_name);
    char path[4096];
    snprintf(path, sizeof path, "%s/kernels/%s.hum", cache, first.key);
    size_t entry_size = 0;
    free(jt_read_file(path, &entry_size));
    JT_CHECK(entry_size > first.cubin_size, "no cache entry at %s", path);

    JT_OK(hum_selfcheck_compile(cache, "sm_90a", seed, &again));
    JT_CHECK(again.cache_hit == HUM_JIT_HIT_MEMORY, "second compile in the process: cache_hit %d", again.cache_hit);

    hum_memory_cache_clear();
    double start = jt_now_ms();
    JT_OK(hum_selfcheck_compile(cache, "sm_90a", seed, &disk));
    double elapsed = jt_now_ms() - start;
    JT_CHECK(disk.cache_hit == HUM_JIT_HIT_DISK, "after clearing memory: cache_hit %d", disk.cache_hit);
    JT_CHECK(elapsed < 50.0 && disk.milliseconds < 50.0, "disk hit took %.2f ms (reported %.2f)", elapsed,
             disk.milliseconds);
    hum_jit_result *results[] = {&again, &disk};
    for (int i = 0; i < 2; i++) {
        JT_CHECK(results[i]->cubin_size == first.cubin_size &&
                     memcmp(results[i]->cubin, first.cubin, first.cubin_size) == 0,
                 "hit %d returned a different cubin", i);
        JT_CHECK(strcmp(results[i]->lowered_name, first.lowered_name) == 0 && strcmp(results[i]->key, first.key) == 0,
                 "hit %d returned name %s key %s", i, results[i]->lowered_name, results[i]->key);
    }

    hum_cache_entry *entries;
    int32_t count;
    JT_OK(hum_cache_list(cache, &entries, &count));
    JT_CHECK(count == 1, "cache lists %d entries, expected 1", count);
    JT_CHECK(entries[0].valid && strcmp(entries[0].key, first.key) == 0 &&
                 strcmp(entries[0].kernel_name, "hum_selfcheck<256>") == 0 && strcmp(entries[0].arch, "sm_90a") == 0 &&
                 entries[0].cubin_bytes == (int64_t)first.cubin_size && entries[0].file_bytes == (int64_t)entry_size &&
                 entries[0].modified_unix > 1600000000,
             "entry: valid %d key %s name %s arch %s cubin %lld file %lld", entries[0].valid, entries[0].key,
             entries[0].kernel_name, entries[0].arch, (long long)entries[0].cubin_bytes,
             (long long)entries[0].file_bytes);
    hum_cache_list_free(entries);

    /* Clearing removes what hum wrote and leaves anything else alone. */
    jt_write_file(cache, "kernels/notes.txt", "mine\n");
    int32_t removed = -1;
    JT_OK(hum_cache_clear(cache, &removed));
    JT_CHECK(removed == 1, "clear removed %d entries, expected 1", removed);
    snprintf(path, sizeof path, "%s/kernels", cache);
    JT_CHECK(jt_count_files(path, ".hum") == 0 && jt_count_files(path, "notes.txt") == 1,
             "after clear: %d entries, notes.txt kept: %d", jt_count_files(path, ".hum"),
             jt_count_files(path, "notes.txt"));
    JT_OK(hum_cache_list(cache, &entries, &count));
    JT_CHECK(count == 0, "cache lists %d entries after clear", count);
    hum_cache_list_free(entries);

    /* After clearing disk and memory, the next compile is a miss again. */
    hum_memory_cache_clear();
    hum_jit_result_free(&disk);
    JT_OK(hum_selfcheck_compile(cache, "sm_90a", seed, &disk));
    JT_CHECK(disk.cache_hit == HUM_JIT_MISS, "compile after clear: cache_hit %d", disk.cache_hit);

    /* A directory that was never created lists as empty. */
    snprintf(path, sizeof path, "%s/never", cache);
    JT_OK(hum_cache_list(path, &entries, &count));
    JT_CHECK(count == 0 && entries == NULL, "missing directory listed %d entries", count);

    hum_jit_result_free(&first);
    hum_jit_result_free(&again);
    hum_jit_result_free(&disk);
    jt_remove_tree(cache);
    free(cache);
    printf("jit_cache_hit: ok\n");
    return 0;
}
