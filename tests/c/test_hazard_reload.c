/* The reload protocol of prepared layers without a GPU (runtime/src/hazard.h): 8 threads, each
 * with its own hazard slot (as each forward has its workspace), pin the table in force, check
 * it is live and whole, "launch" (record its generation instead of a kernel launch) and unpin,
 * in a loop; another thread publishes 50 tables alternating two contents, one in ten dropped
 * before publication as a failed reload, and poisons then frees each table it replaced once
 * hum_hazard_publish returns. A reader that sees a poisoned or freed table fails the test (and
 * AddressSanitizer, in the sanitizer build); both contents must be seen in force, and no
 * table may be left over. */
#include "hazard.h"
#include "quant_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { READERS = 8, RELOADS = 50, LIVE = 0x11fe, DEAD = 0xdead, ROWS = 64 };

typedef struct table {
    int magic;
    int kind;            /* 0 or 1: which of the two "policies" */
    uint64_t generation;
    int rows[ROWS];      /* kind in every row: a torn or reused table shows */
} table;

static _Atomic(void *) published;
static hum_hazard_list slots;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int done, live_tables;
static atomic_long launches, bad;
static atomic_int seen[2];

static table *new_table(int kind, uint64_t generation)
{
    table *t = malloc(sizeof *t);
    t->magic = LIVE;
    t->kind = kind;
    t->generation = generation;
    for (int i = 0; i < ROWS; i++)
        t->rows[i] = kind;
    atomic_fetch_add(&live_tables, 1);
    return t;
}

static void free_table(table *t)
{
    t->magic = DEAD;
    memset(t->rows, 0xff, sizeof t->rows);
    free(t);
    atomic_fetch_sub(&live_tables, 1);
}

static void *reader(void *arg)
{
    (void)arg;
    hum_hazard slot;
    pthread_mutex_lock(&lock);
    hum_hazard_register(&slots, &slot);
    pthread_mutex_unlock(&lock);
    uint64_t last = 0;
    while (!atomic_load(&done)) {
        const table *t = hum_hazard_pin(&slot, &published);
        int ok = t->magic == LIVE && (t->kind == 0 || t->kind == 1) && t->generation >= last;
        for (int i = 0; ok && i < ROWS; i++)
            ok = t->rows[i] == t->kind;
        last = t->generation;
        atomic_fetch_add(&seen[t->kind & 1], 1);
        sched_yield(); /* the launch: the table stays in use meanwhile */
        ok = ok && t->magic == LIVE;
        hum_hazard_unpin(&slot);
        atomic_fetch_add(&launches, 1);
        if (!ok)
            atomic_fetch_add(&bad, 1);
    }
    pthread_mutex_lock(&lock);
    hum_hazard_unregister(&slots, &slot);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    atomic_store(&published, new_table(0, 0));
    pthread_t tid[READERS];
    for (int i = 0; i < READERS; i++)
        pthread_create(&tid[i], NULL, reader, NULL);
    uint64_t generation = 0;
    int published_count = 0, failed = 0;
    for (int r = 1; r <= RELOADS; r++) {
        while (atomic_load(&launches) < (long)r * 50) /* readers run between reloads */
            sched_yield();
        pthread_mutex_lock(&lock);
        const table *now = atomic_load(&published);
        table *next = new_table(now->kind ^ 1, generation + 1);
        if (r % 10 == 0) { /* a failed reload: built, never published */
            free_table(next);
            failed++;
            QUANT_CHECK(atomic_load(&published) == now, "a failed reload changed the table in force");
        } else {
            table *old = hum_hazard_publish(&slots, &published, next);
            generation++;
            published_count++;
            free_table(old); /* no reader holds it: free at once (the GPU wait is the layer's) */
        }
        pthread_mutex_unlock(&lock);
    }
    atomic_store(&done, 1);
    for (int i = 0; i < READERS; i++)
        pthread_join(tid[i], NULL);
    free_table(atomic_load(&published));
    printf("  %ld launches, %d tables published, %d reloads failed, kinds seen %d / %d\n", atomic_load(&launches),
           published_count, failed, atomic_load(&seen[0]), atomic_load(&seen[1]));
    QUANT_CHECK(atomic_load(&bad) == 0, "%ld launches saw a freed, poisoned or torn table", atomic_load(&bad));
    QUANT_CHECK(published_count == 45 && failed == 5, "45 published and 5 failed (got %d, %d)", published_count,
                failed);
    QUANT_CHECK(atomic_load(&seen[0]) > 0 && atomic_load(&seen[1]) > 0, "both tables were in force");
    QUANT_CHECK(atomic_load(&live_tables) == 0 && slots.head == NULL, "%d tables left over",
                atomic_load(&live_tables));
    return quant_test_result("test_hazard_reload");
}
