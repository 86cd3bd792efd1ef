/* Primary contexts, one per device ordinal, shared by everything hum does on that device. */
#ifndef HUM_DEVICE_H
#define HUM_DEVICE_H

#include "cuda_driver.h"

/* Retains the primary context of `ordinal` on first use (released at process exit) and makes it
 * current on the calling thread. HUM_ERR_NO_DEVICE without a driver or GPU, HUM_ERR_INVALID_ARG
 * for an ordinal out of range. `ctx` may be NULL. */
hum_status hum_device_activate(int32_t ordinal, CUcontext *ctx);

/* Makes current the context that owns device pointer `dptr`; HUM_ERR_INVALID_ARG naming `what`
 * when the driver does not know the pointer. */
hum_status hum_device_bind_pointer(const void *dptr, const char *what);

#endif
