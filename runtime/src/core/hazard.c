/* Hazard slots (see hazard.h). */
#include "hazard.h"

#include <sched.h>

void hum_hazard_register(hum_hazard_list *list, hum_hazard *slot)
{
    atomic_store(&slot->held, NULL);
    slot->next = list->head;
    list->head = slot;
}

void hum_hazard_unregister(hum_hazard_list *list, hum_hazard *slot)
{
    for (hum_hazard **p = &list->head; *p; p = &(*p)->next)
        if (*p == slot) {
            *p = slot->next;
            return;
        }
}

void *hum_hazard_publish(hum_hazard_list *list, _Atomic(void *) *published, void *next)
{
    void *old = atomic_exchange(published, next);
    for (hum_hazard *s = list->head; s; s = s->next)
        while (atomic_load(&s->held) == old) /* a forward's host part: microseconds */
            sched_yield();
    return old;
}
