/* The one way the CLI prints a layer's dispatch table (hum info --layer, hum bench, hum tune):
 * per M range the kernel, tiles, stages, CTAs per SM, stream-K, resources and the policy line
 * that chose it. */
#ifndef HUM_CLI_DISPATCH_H
#define HUM_CLI_DISPATCH_H

#include "hum/hum.h"

#include <stdio.h>

/* "M 1..16" or "M 129..inf" into out. */
void cli_m_range(const hum_tuning *t, char *out, size_t cap);

/* "mma.sync block 16x128x256, warp 16x32x128, 4 stages, 1 CTA/SM, stream-K" into out. */
void cli_tuning_text(const hum_tuning *t, char *out, size_t cap);

/* A heading line (policy, its file, device, arch), then one line per row, each indented by
 * `indent` spaces. */
void cli_print_dispatch(FILE *f, const hum_layer_dispatch *d, int indent);

#endif
