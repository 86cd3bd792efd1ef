/* Publication of a pointer that hot paths read without locks (hazard slots), for the dispatch
 * tables that a policy reload replaces under running forwards (layer_reload.c).
 *
 * A reader owns a slot (one per hum_workspace: a workspace serves one forward at a time) and
 * pins the pointer in force before using what it points to:
 *     const T *t = hum_hazard_pin(&slot, &published);  ...use t...  hum_hazard_unpin(&slot);
 * Pinning is a load, a store and a load, all to lines the reader already owns or only reads:
 * no lock, no shared counter. A writer swaps in a new pointer with hum_hazard_publish, which
 * returns once no slot still holds the old one; the old object may then be freed (after its
 * GPU work is done: that is the caller's part). Slots are registered in a list that the
 * caller guards with its own lock, held across register, unregister and publish. */
#ifndef HUM_HAZARD_H
#define HUM_HAZARD_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct hum_hazard {
    _Atomic(void *) held;
    struct hum_hazard *next;
} hum_hazard;

typedef struct hum_hazard_list {
    hum_hazard *head;
} hum_hazard_list;

/* The pointer in force, marked as in use by `slot` until hum_hazard_unpin. */
static inline void *hum_hazard_pin(hum_hazard *slot, _Atomic(void *) *published)
{
    void *p = atomic_load_explicit(published, memory_order_acquire);
    for (;;) {
        /* seq_cst store then load: a publish either sees this slot hold p, or happened
         * before the load below, which then sees the new pointer and tries again */
        atomic_store(&slot->held, p);
        void *again = atomic_load(published);
        if (again == p)
            return p;
        p = again;
    }
}

static inline void hum_hazard_unpin(hum_hazard *slot)
{
    atomic_store_explicit(&slot->held, NULL, memory_order_release);
}

/* List upkeep; the caller holds the list's lock. */
void hum_hazard_register(hum_hazard_list *list, hum_hazard *slot);
void hum_hazard_unregister(hum_hazard_list *list, hum_hazard *slot);

/* Puts `next` in force and waits until no slot of `list` holds the pointer it replaced, which
 * it returns. The caller holds the list's lock (so no slot joins or leaves meanwhile). */
void *hum_hazard_publish(hum_hazard_list *list, _Atomic(void *) *published, void *next);

#endif
