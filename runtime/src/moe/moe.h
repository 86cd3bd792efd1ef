/* The hum_moe object (hum.h, HUM-SECTION moe) inside libhum: the files of moe/ share it.
 *   moe.c          options, creation from standard weights (checks, expert shard), info, destroy
 *   moe_align.c    the routing layout on the GPU (kernels/moe/align.cu)
 *   moe_kernels.c  the activation and the combine (kernels/moe/act.cu, combine.cu)
 *   align_ref.c    the layout's host twin; moe_ref.c the float64 MoE layer (hum_tools.h) */
#ifndef HUM_MOE_H
#define HUM_MOE_H

#include "hum/hum_tools.h"
#include "moe_align.h"
#include "moe_kernels.h"

struct hum_moe {
    hum_runtime *rt;
    hum_moe_options opts;      /* experts NULL: the kept weights are the layer's experts */
    hum_standard_weight w13;   /* host copies until prepared */
    hum_standard_weight w2;
    hum_dtype activation_dtype;
    int64_t experts, hidden, intermediate;
};

#endif
