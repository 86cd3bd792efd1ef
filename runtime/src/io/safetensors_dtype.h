/* safetensors dtype strings <-> hum dtype codes, shared by the reader and the writer. */
#ifndef HUM_SAFETENSORS_DTYPE_H
#define HUM_SAFETENSORS_DTYPE_H

#include "hum/hum.h"

/* The safetensors string the writer uses for `dtype`, or NULL when it has none. */
const char *hum_safetensors_dtype_name(hum_dtype dtype);

#endif
