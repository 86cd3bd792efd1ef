/* Several processes compiling the same kernel at the same moment: one compiles, the others wait
 * on the entry's lock and read its result; one valid entry and no temp files are left. */
#define _GNU_SOURCE
#include "jit_support.h"

#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { PROCESSES = 4, EXIT_BASE = 10 };

int main(void)
{
    char *cache = jt_make_temp_dir("jit-concurrent");
    uint32_t seed = (uint32_t)time(NULL) * 2654435761u;
    int gate[2];
    JT_CHECK(pipe(gate) == 0, "pipe failed");
    pid_t children[PROCESSES];
    for (int i = 0; i < PROCESSES; i++) {
        children[i] = fork();
        JT_CHECK(children[i] >= 0, "fork failed");
        if (children[i] == 0) {
            close(gate[1]);
            char byte;
            /* Every child blocks here until the parent closes the pipe, then all start at once. */
            (void)!read(gate[0], &byte, 1);
            hum_jit_result r;
            if (hum_selfcheck_compile(cache, "sm_90a", seed, &r) != HUM_OK) {
                fprintf(stderr, "child %d: %s\n", i, hum_last_error());
                _exit(1);
            }
            int code = jt_cubin_is_for(r.cubin, r.cubin_size, 90) ? EXIT_BASE + r.cache_hit : 2;
            hum_jit_result_free(&r);
            _exit(code);
        }
    }
    close(gate[0]);
    close(gate[1]);
    int misses = 0, disk_hits = 0;
    for (int i = 0; i < PROCESSES; i++) {
        int status;
        JT_CHECK(waitpid(children[i], &status, 0) == children[i] && WIFEXITED(status), "child %d did not exit", i);
        int code = WEXITSTATUS(status);
        JT_CHECK(code == EXIT_BASE + HUM_JIT_MISS || code == EXIT_BASE + HUM_JIT_HIT_DISK,
                 "child %d exited with %d (1: compile failed, 2: bad cubin)", i, code);
        misses += code == EXIT_BASE + HUM_JIT_MISS;
        disk_hits += code == EXIT_BASE + HUM_JIT_HIT_DISK;
    }
    JT_CHECK(misses == 1 && disk_hits == PROCESSES - 1,
             "%d processes compiled and %d read the entry; expected exactly one compile", misses, disk_hits);

    char kernels[4096];
    snprintf(kernels, sizeof kernels, "%s/kernels", cache);
    JT_CHECK(jt_count_files(kernels, "") == 1 && jt_count_files(kernels, ".hum") == 1,
             "kernels/ holds %d files (%d entries); expected one entry and no temp files", jt_count_files(kernels, ""),
             jt_count_files(kernels, ".hum"));
    hum_cache_entry *entries;
    int32_t count;
    JT_OK(hum_cache_list(cache, &entries, &count));
    JT_CHECK(count == 1 && entries[0].valid, "the entry is not valid (count %d)", count);
    hum_cache_list_free(entries);

    hum_jit_result r;
    JT_OK(hum_selfcheck_compile(cache, "sm_90a", seed, &r));
    JT_CHECK(r.cache_hit == HUM_JIT_HIT_DISK, "the parent did not find the children's entry (cache_hit %d)",
             r.cache_hit);
    hum_jit_result_free(&r);
    jt_remove_tree(cache);
    free(cache);
    printf("jit_cache_concurrent: ok\n");
    return 0;
}
