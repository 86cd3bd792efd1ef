/* Tuning sessions (hum/hum_tools.h, hum_tune_session): C plans the layer's inputs and target
 * and compiles candidates; lua/hum/tune.lua decides the candidates, the winners and the policy
 * text. */
#include "layer.h"

#include "internal.h"
#include "lua_bridge.h"

#include <stdlib.h>

hum_status hum_tune_begin(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                          hum_tune_session *s)
{
    if (!rt || !w || !s)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_tune_begin: NULL argument");
    hum_device_info dev;
    hum_layer_types types;
    hum_status st;
    if ((st = hum_runtime_device(rt, &dev)) != HUM_OK ||
        (st = hum_layer_check_weight(w, opts, HUM_GEMM_DENSE, &types)) != HUM_OK ||
        (st = hum_layer_plan_target(&dev, &s->plan)) != HUM_OK)
        return st;
    hum_layer_plan_inputs(w, &types, &s->plan);
    return hum_lua_call(rt, "hum.tune", "begin", "hum_tune_session *", s);
}

int32_t hum_tune_precompile(hum_runtime *rt, const hum_tune_session *s)
{
    if (!rt || !s)
        return 0;
    hum_tuning *all = malloc(sizeof(hum_tuning) * HUM_LAYER_MAX_ENTRIES * HUM_TUNE_MAX_CANDIDATES);
    if (!all)
        return 0;
    int32_t count = 0;
    for (int32_t r = 0; r < s->range_count && r < HUM_LAYER_MAX_ENTRIES; r++)
        for (int32_t c = 0; c < s->ranges[r].candidate_count && c < HUM_TUNE_MAX_CANDIDATES; c++)
            all[count++] = s->ranges[r].candidates[c];
    const int32_t requested = hum_layer_precompile(rt, &s->plan, all, count);
    free(all);
    return requested;
}

hum_status hum_tune_pick(hum_runtime *rt, hum_tune_session *s)
{
    return hum_lua_call(rt, "hum.tune", "pick", "hum_tune_session *", s);
}

hum_status hum_tune_policy_text(hum_runtime *rt, hum_tune_session *s, int32_t range, int32_t candidate)
{
    if (!s)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_tune_policy_text: NULL session");
    s->text_range = range;
    s->text_candidate = candidate;
    return hum_lua_call(rt, "hum.tune", "policy_text", "hum_tune_session *", s);
}
