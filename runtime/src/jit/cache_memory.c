#include "cache_memory.h"

#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
    uint8_t key[HUM_JIT_KEY_BYTES];
    void *cubin; /* NULL: empty slot */
    size_t cubin_size;
    char *lowered;
} slot;

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static slot *slots; /* open addressing, linear probing; capacity a power of two */
static size_t capacity, used;

/* The key is already a uniform hash: its first bytes index the table directly. */
static size_t home(const uint8_t key[HUM_JIT_KEY_BYTES])
{
    size_t h;
    memcpy(&h, key, sizeof h);
    return h & (capacity - 1);
}

static slot *find(const uint8_t key[HUM_JIT_KEY_BYTES])
{
    if (!capacity)
        return NULL;
    for (size_t i = home(key);; i = (i + 1) & (capacity - 1)) {
        if (!slots[i].cubin || memcmp(slots[i].key, key, HUM_JIT_KEY_BYTES) == 0)
            return &slots[i];
    }
}

int hum_memory_cache_get(const uint8_t key[HUM_JIT_KEY_BYTES], void **cubin, size_t *cubin_size, char *lowered,
                         size_t lowered_cap)
{
    int hit = 0;
    pthread_rwlock_rdlock(&lock);
    slot *s = find(key);
    if (s && s->cubin && strlen(s->lowered) < lowered_cap) {
        void *copy = malloc(s->cubin_size);
        if (copy) {
            memcpy(copy, s->cubin, s->cubin_size);
            strcpy(lowered, s->lowered);
            *cubin = copy;
            *cubin_size = s->cubin_size;
            hit = 1;
        } else {
            hum_fail(HUM_ERR_OUT_OF_MEMORY, "copying a cached cubin of %zu bytes: out of memory", s->cubin_size);
            hit = -1;
        }
    }
    pthread_rwlock_unlock(&lock);
    return hit;
}

/* Doubles the table (or creates it); called with the write lock held. */
static int grow(void)
{
    size_t old_capacity = capacity;
    slot *old = slots;
    size_t new_capacity = capacity ? capacity * 2 : 64;
    slot *fresh = calloc(new_capacity, sizeof *fresh);
    if (!fresh)
        return 0;
    slots = fresh;
    capacity = new_capacity;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].cubin)
            *find(old[i].key) = old[i];
    free(old);
    return 1;
}

hum_status hum_memory_cache_put(const uint8_t key[HUM_JIT_KEY_BYTES], const void *cubin, size_t cubin_size,
                                const char *lowered)
{
    hum_status st = HUM_OK;
    pthread_rwlock_wrlock(&lock);
    /* Keep the load factor at most one half so probes stay short and always end. */
    if ((used + 1) * 2 > capacity && !grow()) {
        st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "growing the in-memory kernel cache: out of memory");
    } else {
        slot *s = find(key);
        if (!s->cubin) {
            void *copy = malloc(cubin_size);
            char *name = strdup(lowered);
            if (copy && name) {
                memcpy(copy, cubin, cubin_size);
                memcpy(s->key, key, HUM_JIT_KEY_BYTES);
                s->cubin = copy;
                s->cubin_size = cubin_size;
                s->lowered = name;
                used++;
            } else {
                free(copy);
                free(name);
                st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "caching a cubin of %zu bytes: out of memory", cubin_size);
            }
        }
    }
    pthread_rwlock_unlock(&lock);
    return st;
}

void hum_memory_cache_clear(void)
{
    pthread_rwlock_wrlock(&lock);
    for (size_t i = 0; i < capacity; i++) {
        free(slots[i].cubin);
        free(slots[i].lowered);
    }
    free(slots);
    slots = NULL;
    capacity = used = 0;
    pthread_rwlock_unlock(&lock);
}
