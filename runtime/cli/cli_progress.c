/* cli_progress.h: one ticker thread per step, woken early by cli_step_end. */
#define _POSIX_C_SOURCE 200809L
#include "cli_progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct cli_step {
    char what[256];
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t done_cond; /* signalled by cli_step_end */
    int done;
};

static void *tick(void *arg)
{
    cli_step *s = arg;
    struct timespec start, at;
    clock_gettime(CLOCK_REALTIME, &start);
    pthread_mutex_lock(&s->lock);
    for (long seconds = 1; !s->done; seconds *= 2) {
        at = start;
        at.tv_sec += seconds;
        while (!s->done && pthread_cond_timedwait(&s->done_cond, &s->lock, &at) == 0)
            ;
        if (!s->done)
            printf("  ... %s: %ld s\n", s->what, seconds);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

cli_step *cli_step_begin(const char *what)
{
    printf("%s ...\n", what);
    cli_step *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    snprintf(s->what, sizeof s->what, "%s", what);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->done_cond, NULL);
    if (pthread_create(&s->thread, NULL, tick, s) != 0) {
        pthread_cond_destroy(&s->done_cond);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    return s;
}

void cli_step_end(cli_step *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->done = 1;
    pthread_cond_signal(&s->done_cond);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->done_cond);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
