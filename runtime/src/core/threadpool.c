#include "threadpool.h"

#include "cpu_quota.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct job {
    atomic_int next;
    int32_t count;
    void (*fn)(void *ctx, int32_t index);
    void *ctx;
} job;

/* Whether this thread is running a pool's items, and how many threads run pools' items (their
 * callers included): a pool started from inside an item takes only the CPUs the running pools
 * leave idle, so nested pools (random experts, each weight's bands) do not multiply the threads,
 * while a pool inside a small one (a layer's compiles beside its upload) still gets the rest. */
static _Thread_local int in_pool;
static atomic_int running;

static void *worker(void *arg)
{
    job *j = arg;
    const int outer = in_pool;
    in_pool = 1;
    for (int32_t i; (i = atomic_fetch_add(&j->next, 1)) < j->count;)
        j->fn(j->ctx, i);
    in_pool = outer;
    return NULL;
}

/* read once: a quota changed while the process runs is not followed */
static pthread_once_t quota_once = PTHREAD_ONCE_INIT;
static int32_t quota_cpus;

static void read_quota(void)
{
    quota_cpus = hum_cgroup_cpu_limit("");
}

/* The CPUs this process may run on (taskset, a container's cpuset), else those online, and no
 * more than its cgroup's CPU quota allows. */
static int32_t cpu_count(void)
{
    cpu_set_t set;
    long cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    pthread_once(&quota_once, read_quota);
    if (quota_cpus > 0 && quota_cpus < cpus)
        cpus = quota_cpus;
    return cpus > 0 ? (int32_t)(cpus < INT32_MAX ? cpus : INT32_MAX) : 1;
}

int32_t hum_parallel_threads(int32_t count, int32_t threads)
{
    if (threads <= 0)
        threads = cpu_count();
    if (threads > count)
        threads = count;
    return threads > 0 ? threads : 1;
}

void hum_parallel_for(int32_t count, int32_t threads, void (*fn)(void *ctx, int32_t index), void *ctx)
{
    if (count <= 0)
        return;
    job j = {.count = count, .fn = fn, .ctx = ctx};
    atomic_init(&j.next, 0);
    const int caller = in_pool ? 0 : 1; /* the caller joins the running count unless it is in it */
    int32_t extra = hum_parallel_threads(count, threads) - 1;
    if (in_pool && threads <= 0) {
        const int32_t idle = cpu_count() - atomic_load(&running);
        if (extra > idle)
            extra = idle > 0 ? idle : 0;
    }
    atomic_fetch_add(&running, caller);
    pthread_t *ids = extra > 0 ? malloc((size_t)extra * sizeof *ids) : NULL;
    int32_t started = 0;
    while (ids && started < extra) {
        atomic_fetch_add(&running, 1);
        if (pthread_create(&ids[started], NULL, worker, &j) != 0) {
            atomic_fetch_sub(&running, 1);
            break;
        }
        started++;
    }
    worker(&j);
    for (int32_t i = 0; i < started; i++)
        pthread_join(ids[i], NULL);
    atomic_fetch_sub(&running, started + caller);
    free(ids);
}
