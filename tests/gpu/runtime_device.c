/* With a GPU: the runtime finds device 0 exactly as hum_device_query reports it, and a
 * built-in policy applies to it. Skipped (77) without a GPU. */
#include "hum/hum.h"
#include "runtime.h"
#include "rt_test.h"
#include "device.h"

#include <string.h>

int main(void)
{
    int32_t count = 0;
    if (hum_device_count(&count) != HUM_OK)
        return 77;
    hum_device_info want, got;
    RT_CHECK(hum_device_query(0, &want) == HUM_OK, "%s", hum_last_error());
    hum_runtime *rt = NULL;
    if (!RT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()))
        return rt_test_result("runtime_device");
    RT_CHECK(hum_runtime_device(rt, &got) == HUM_OK, "%s", hum_last_error());
    RT_CHECK(!strcmp(got.name, want.name) && got.sm_major == want.sm_major && got.sm_minor == want.sm_minor &&
                 got.sm_count == want.sm_count,
             "runtime device %s sm_%d%d x%d vs query %s", got.name, got.sm_major, got.sm_minor, got.sm_count,
             want.name);
    char name[128], origin[1024];
    RT_CHECK(hum_runtime_policy_winner(rt, NULL, name, sizeof name, origin, sizeof origin) == HUM_OK, "%s",
             hum_last_error());
    RT_CHECK(name[0] != '\0', "a built-in policy applies to %s", got.name);
    hum_runtime_destroy(rt);
    return rt_test_result("runtime_device");
}
