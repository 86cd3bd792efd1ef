/* hum_moe_prepare when a thread cannot be had: it prepares the layer's two expert GEMMs on
 * threads of their own, and a pthread_create that fails for either fails the prepare
 * (HUM_ERR_INTERNAL naming the GEMM), leaves the layer unprepared with nothing of it kept (the
 * GEMM whose thread did start prepared and then destroyed: the sanitizer builds see a leak or a
 * join of a thread never made), and a later prepare of the same layer succeeds. pthread_create is
 * interposed here: on the main thread it fails once `allowed` calls have passed (the thread
 * pool's calls, libhum's others, run the work on the caller when it fails). Skipped (77) without
 * a GPU. */
#define _GNU_SOURCE
#include "gemm_test.h"
#include "hum/hum.h"
#include "hum/hum_tools.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static pthread_t main_thread;
static atomic_int allowed = -1; /* the main thread's calls to let through before failing; -1: all */

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    if (pthread_equal(pthread_self(), main_thread)) {
        int left = atomic_load(&allowed);
        while (left > 0 && !atomic_compare_exchange_weak(&allowed, &left, left - 1))
            ;
        if (left == 0)
            return EAGAIN;
    }
    int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
        (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
    return real ? real(thread, attr, start, arg) : EAGAIN;
}

int main(void)
{
    main_thread = pthread_self();
    if (!gemm_test_have_gpu())
        return 77;
    hum_runtime *rt = NULL;
    hum_moe_spec s;
    hum_standard_weight w13 = {0}, w2 = {0};
    hum_moe *moe = NULL;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK &&
                         hum_moe_spec_parse("e=8,topk=2,n=256,k=256,w=uint4,a=bfloat16,group=128", &s) == HUM_OK &&
                         hum_moe_spec_weights(&s, 5, &w13, &w2) == HUM_OK,
                     "setup: %s", hum_last_error()))
        return quant_test_result("moe_prepare_threads");
    hum_moe_options o;
    hum_moe_options_init(&o);
    o.activation = s.activation;
    o.gate_up = s.gate_up_layout;
    o.top_k = s.top_k;
    o.activation_dtype = s.gate_up.output_dtype;
    o.gemm_type = s.gemm_type;
    if (QUANT_CHECK(hum_moe_from_standard(rt, &w13, &w2, &o, &moe) == HUM_OK, "layer: %s", hum_last_error())) {
        /* the gate/up GEMM's thread is the main thread's first after planning, the down GEMM's
         * its second */
        static const char *const refused[] = {"gate/up", "down"};
        for (int i = 0; i < 2; i++) {
            atomic_store(&allowed, i);
            const hum_status st = hum_moe_prepare(moe);
            atomic_store(&allowed, -1);
            int64_t bytes = 0;
            QUANT_CHECK(st == HUM_ERR_INTERNAL && strstr(hum_last_error(), refused[i]) &&
                            strstr(hum_last_error(), "thread"),
                        "%s GEMM's thread refused: prepare returned %s (%s), expected HUM_ERR_INTERNAL naming it",
                        refused[i], hum_status_name(st), hum_last_error());
            QUANT_CHECK(hum_moe_workspace_size(moe, 1, &bytes) == HUM_ERR_INVALID_ARG &&
                            strstr(hum_last_error(), "not prepared"),
                        "%s GEMM's thread refused: the layer should stay unprepared (%s)", refused[i],
                        hum_last_error());
        }
        hum_moe_info info;
        QUANT_CHECK(hum_moe_prepare(moe) == HUM_OK && hum_moe_get_info(moe, &info) == HUM_OK &&
                        info.gate_up_gemm.entry_count >= 1 && info.down_gemm.entry_count >= 1,
                    "prepare with threads to be had: %s", hum_last_error());
    }
    hum_moe_destroy(moe);
    hum_standard_free(&w13);
    hum_standard_free(&w2);
    hum_runtime_destroy(rt);
    return quant_test_result("moe_prepare_threads");
}
