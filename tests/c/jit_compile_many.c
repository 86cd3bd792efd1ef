/* A list of kernels compiles in parallel, the costliest first; each result answers its own request;
 * one failure fails the call and leaves nothing allocated. */
#define _GNU_SOURCE
#include "jit_support.h"
#include "threadpool.h"
#include "jit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

enum { KERNELS = 6 };

static atomic_int visits[1000];

static void visit(void *ctx, int32_t i)
{
    atomic_fetch_add(&visits[i], 1);
    atomic_fetch_add((atomic_int *)ctx, 1);
}

/* Runs reqs (every kernel of them cached in memory) with costs `cost` on one thread, requests
 * `earlier` and `later` made alike but for their costs, under a key of their own (constants with
 * `fresh`): the one that starts first compiles and the other finds its cubin in memory, so which
 * of the two the runtime reports as compiled says which started first. */
static void starts_before(const char *cache, const hum_jit_request *reqs, const int64_t *cost, int earlier, int later,
                          unsigned fresh)
{
    char constants[96];
    snprintf(constants, sizeof constants, "constexpr float kFactor = %u.25f;\n", fresh % 1000);
    hum_jit_request round[KERNELS];
    for (int i = 0; i < KERNELS; i++) {
        round[i] = reqs[i];
        round[i].cost = cost[i];
    }
    round[earlier].constants = constants;
    round[later] = round[earlier];
    round[later].cost = cost[later];
    hum_jit_result out[KERNELS];
    JT_OK(hum_jit_compile_many(cache, round, KERNELS, out, 1));
    for (int i = 0; i < KERNELS; i++) {
        const int32_t expected = i == earlier ? HUM_JIT_MISS : HUM_JIT_HIT_MEMORY;
        JT_CHECK(out[i].cache_hit == expected,
                 "request %d (cost %lld) should start before request %d (cost %lld): request %d reports hit %d, "
                 "expected %d", earlier, (long long)cost[earlier], later, (long long)cost[later], i, out[i].cache_hit,
                 expected);
        hum_jit_result_free(&out[i]);
    }
}

/* Distinct threads a nested pool ran its items on (items sleep, so that every thread takes some). */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t seen[256];
static int seen_count;

static void note_thread(void *ctx, int32_t i)
{
    (void)ctx;
    (void)i;
    nanosleep(&(struct timespec){0, 2000000}, NULL);
    pthread_mutex_lock(&seen_lock);
    int known = 0;
    for (int k = 0; k < seen_count; k++)
        known |= pthread_equal(seen[k], pthread_self());
    if (!known && seen_count < 256)
        seen[seen_count++] = pthread_self();
    pthread_mutex_unlock(&seen_lock);
}

static void nested(void *ctx, int32_t i)
{
    (void)i;
    hum_parallel_for(*(const int32_t *)ctx, 0, note_thread, NULL);
}

int main(void)
{
    /* A pool inside a pool's item takes the CPUs the running pools leave idle: all but the one
     * running the item (a layer's compiles inside the prepare's two tasks ran on one thread when
     * every nested pool ran inline), none inside a pool that fills them (random experts). */
    const int32_t cpus = hum_parallel_threads(1 << 20, 0);
    int32_t items = 8 * cpus;
    seen_count = 0;
    hum_parallel_for(1, 1, nested, &items);
    JT_CHECK(seen_count == cpus, "a pool inside a one-thread pool ran on %d threads, expected %d (the CPUs)",
             seen_count, cpus);
    seen_count = 0;
    items = 4;
    hum_parallel_for(cpus, cpus, nested, &items);
    JT_CHECK(seen_count <= cpus, "pools inside a pool of %d threads ran on %d threads, expected no more", cpus,
             seen_count);

    /* The pool runs every index exactly once, whatever the thread count. */
    int32_t threads_asked[] = {0, 1, 3, 64};
    for (size_t t = 0; t < sizeof threads_asked / sizeof threads_asked[0]; t++) {
        atomic_int total;
        atomic_init(&total, 0);
        for (int i = 0; i < 1000; i++)
            atomic_init(&visits[i], 0);
        hum_parallel_for(1000, threads_asked[t], visit, &total);
        JT_CHECK(atomic_load(&total) == 1000, "threads %d: %d calls", threads_asked[t], atomic_load(&total));
        for (int i = 0; i < 1000; i++)
            JT_CHECK(atomic_load(&visits[i]) == 1, "threads %d: index %d ran %d times", threads_asked[t], i,
                     atomic_load(&visits[i]));
    }
    JT_CHECK(hum_parallel_threads(3, 0) >= 1 && hum_parallel_threads(3, 0) <= 3 && hum_parallel_threads(10, 4) == 4 &&
                 hum_parallel_threads(2, 8) == 2,
             "thread counts: %d %d %d", hum_parallel_threads(3, 0), hum_parallel_threads(10, 4),
             hum_parallel_threads(2, 8));

    char *kdir = jt_make_temp_dir("jit-many-kernels"), *cache = jt_make_temp_dir("jit-many-cache");
    setenv("HUM_KERNEL_PATH", kdir, 1);
    jt_write_file(kdir, "scale.cu",
                  "#include \"hum_constants.h\"\n"
                  "template <int kTile> __global__ void scale(float *x) { x[threadIdx.x] *= kFactor * kTile; }\n");
    char constants[KERNELS][96], names[KERNELS][32];
    hum_jit_request reqs[KERNELS];
    const char *archs[] = {"sm_80", "sm_90a"};
    unsigned salt = (unsigned)time(NULL);
    for (int i = 0; i < KERNELS; i++) {
        snprintf(constants[i], sizeof constants[i], "constexpr float kFactor = %u.5f;\n", salt % 1000 + (unsigned)i);
        snprintf(names[i], sizeof names[i], "scale<%d>", 16 << i);
        reqs[i] = (hum_jit_request){.source = "kernels/scale.cu", .constants = constants[i], .kernel_name = names[i],
                                    .arch = archs[i % 2], .fast_math = i % 3 == 0};
    }
    hum_jit_result out[KERNELS];
    JT_OK(hum_jit_compile_many(cache, reqs, KERNELS, out, 0));
    for (int i = 0; i < KERNELS; i++) {
        char expected[64];
        snprintf(expected, sizeof expected, "_Z5scaleILi%dEEvPf", 16 << i);
        JT_CHECK(out[i].cache_hit == HUM_JIT_MISS && strcmp(out[i].lowered_name, expected) == 0,
                 "result %d: hit %d name %s, expected a miss named %s", i, out[i].cache_hit, out[i].lowered_name,
                 expected);
        JT_CHECK(jt_cubin_is_for(out[i].cubin, out[i].cubin_size, i % 2 ? 90 : 80), "result %d: wrong arch", i);
        char key[33];
        JT_OK(hum_jit_key(&reqs[i], key, sizeof key));
        JT_CHECK(strcmp(key, out[i].key) == 0, "result %d carries key %s, request %d has %s", i, out[i].key, i, key);
        for (int j = 0; j < i; j++)
            JT_CHECK(strcmp(out[i].key, out[j].key) != 0, "results %d and %d share a key", i, j);
    }
    hum_jit_result again[KERNELS];
    JT_OK(hum_jit_compile_many(cache, reqs, KERNELS, again, 2));
    for (int i = 0; i < KERNELS; i++) {
        JT_CHECK(again[i].cache_hit == HUM_JIT_HIT_MEMORY && again[i].cubin_size == out[i].cubin_size &&
                     memcmp(again[i].cubin, out[i].cubin, out[i].cubin_size) == 0,
                 "second batch, result %d: hit %d", i, again[i].cache_hit);
        hum_jit_result_free(&again[i]);
        hum_jit_result_free(&out[i]);
    }

    /* Costlier requests start first (request i costs i, so request k before request k - 1, for
     * every neighbour of that order); with equal costs, request order. */
    int64_t costed[KERNELS], equal[KERNELS];
    for (int i = 0; i < KERNELS; i++) {
        costed[i] = i;
        equal[i] = 7;
    }
    for (int k = 1; k < KERNELS; k++)
        starts_before(cache, reqs, costed, k, k - 1, salt + (unsigned)k);
    starts_before(cache, reqs, equal, 2, 3, salt + KERNELS);

    /* Request 3 cannot compile: the whole call fails, says which, and hands back nothing. */
    jt_write_file(kdir, "bad.cu", "__global__ void bad() { this is not C++; }\n");
    reqs[3] = (hum_jit_request){.source = "kernels/bad.cu", .kernel_name = "bad", .arch = "sm_90a"};
    memset(out, 0x5a, sizeof out);
    JT_STATUS(hum_jit_compile_many(cache, reqs, KERNELS, out, 3), HUM_ERR_COMPILE);
    JT_CHECK(strstr(hum_last_error(), "request 3 of 6") && strstr(hum_last_error(), "kernels/bad.cu") &&
                 strstr(hum_last_error(), "/logs/"),
             "message: %s", hum_last_error());
    for (int i = 0; i < KERNELS; i++)
        JT_CHECK(out[i].cubin == NULL && out[i].cubin_size == 0, "result %d was left behind", i);

    JT_OK(hum_jit_compile_many(cache, reqs, 0, NULL, 0));
    JT_STATUS(hum_jit_compile_many(cache, reqs, -1, out, 0), HUM_ERR_INVALID_ARG);
    JT_STATUS(hum_jit_compile_many(cache, NULL, 2, out, 0), HUM_ERR_INVALID_ARG);

    jt_remove_tree(kdir);
    jt_remove_tree(cache);
    free(kdir);
    free(cache);
    printf("jit_compile_many: ok\n");
    return 0;
}
