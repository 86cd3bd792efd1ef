/* A minimal C host of hum: create a runtime (optionally from a deployment config), print the
 * device it found or why there is none, and the policy files in force.
 *   minimal_host [deploy.yaml] */
#include <hum/hum.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    hum_runtime_options opts;
    hum_runtime_options_init(&opts);
    opts.config_path = argc > 1 ? argv[1] : NULL;

    hum_runtime *rt;
    if (hum_runtime_create(&opts, &rt) != HUM_OK) {
        fprintf(stderr, "minimal_host: %s\n", hum_last_error());
        return 1;
    }
    hum_device_info dev;
    if (hum_runtime_device(rt, &dev) == HUM_OK)
        printf("device %d: %s, sm_%d%d, %d SMs\n", dev.ordinal, dev.name, dev.sm_major, dev.sm_minor, dev.sm_count);
    else
        printf("no device: %s\n", hum_last_error());
    printf("hum %s, kernel cache %s, %d policy files:\n", hum_version(), hum_runtime_cache_dir(rt),
           hum_runtime_policy_count(rt));
    for (int32_t i = 0; i < hum_runtime_policy_count(rt); i++)
        printf("  %s\n", hum_runtime_policy_origin(rt, i));
    hum_runtime_destroy(rt);
    return 0;
}
