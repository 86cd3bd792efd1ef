/* The one way the CLI shows a layer's dispatch table (hum info --layer, hum bench, hum tune):
 * per M range the kernel, tiles, stages, CTAs per SM, stream-K, resources and the policy line
 * that chose it, as JSON (hum info --json) and as text printed from that JSON. */
#ifndef HUM_CLI_DISPATCH_H
#define HUM_CLI_DISPATCH_H

#include "hum/hum_tools.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* "M 1..16" or "M 129..inf" into out. */
void cli_m_range(const hum_tuning *t, char *out, size_t cap);

/* "mma block 16x128x256, warp 16x32x128, 4 stages, 1 CTA/SM, stream-K" into out (then the
 * promotion period, ", C staged in the last stage", ", A multicast to 2-CTA clusters" and the other
 * flags where they are not the defaults). */
void cli_tuning_text(const hum_tuning *t, char *out, size_t cap);
/* The name a table prints for kernel family `kernel`: the one a policy gives it
 * (hum_gemm_kernel_name), "unknown" for a value that names none. */
const char *cli_kernel_name(int32_t kernel);

/* { policy, policy_origin, device, arch, ranges: [{ m_min, m_max (null: no bound), kernel,
 *   block: [m, n, k], warp: [m, n, k], stages, ctas_per_sm, stream_k, stream_k_sum ("output" or
 *   "workspace"), whole_fill (percent, 0: never), promote_k, group_m (0: 8), c_tile ("own" or "stage"), multicast_a, weights_ss,
 *   quantize_a, smem_bytes, threads, origin }] }; NULL when out of memory. */
cJSON *cli_dispatch_json(const hum_layer_dispatch *d);

/* A heading line (policy, its file, device, arch), then one line per range, each indented by
 * `indent` spaces, from cli_dispatch_json's object. */
void cli_print_dispatch_json(FILE *f, const cJSON *d, int indent);

/* cli_print_dispatch_json of cli_dispatch_json(d). */
void cli_print_dispatch(FILE *f, const hum_layer_dispatch *d, int indent);

#endif
