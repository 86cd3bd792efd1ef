/* The config field table (hum_ffi.h, hum_config_fields): one row per entry of hum.h's field lists. */
#include "hum_ffi.h"

#include <stddef.h>

#define ROW(id, config, type, name, kind, role, constant, values)                                              \
    {id, HUM_FIELD_##kind, HUM_FIELD_##role, (int32_t)sizeof(type), (int64_t)offsetof(config, name), #name, \
     constant, values},
#define LAYER_ROW(type, name, kind, role, constant, values) \
    ROW(HUM_CONFIG_LAYER, hum_layer_config, type, name, kind, role, constant, values)
#define COMPUTE_ROW(type, name, kind, role, constant, values) \
    ROW(HUM_CONFIG_COMPUTE, hum_compute_config, type, name, kind, role, constant, values)
#define TUNING_ROW(type, name, kind, role, constant, values) \
    ROW(HUM_CONFIG_TUNING, hum_tuning, type, name, kind, role, constant, values)

static const hum_config_field fields[] = {
    HUM_LAYER_CONFIG_FIELDS(LAYER_ROW) HUM_COMPUTE_CONFIG_FIELDS(COMPUTE_ROW) HUM_TUNING_FIELDS(TUNING_ROW)};

/* Readers of the table (the constants header, Lua) take every field as 4 or 8 bytes. */
#define SIZE_CHECK(type, name, kind, role, constant, values) \
    _Static_assert(sizeof(type) == 4 || sizeof(type) == 8, #name " is neither 4 nor 8 bytes");
HUM_LAYER_CONFIG_FIELDS(SIZE_CHECK)
HUM_COMPUTE_CONFIG_FIELDS(SIZE_CHECK)
HUM_TUNING_FIELDS(SIZE_CHECK)

const hum_config_field *hum_config_fields(int32_t *count)
{
    if (count)
        *count = (int32_t)(sizeof fields / sizeof fields[0]);
    return fields;
}
