/* cli_dispatch.h: printing dispatch tables. */
#include "cli_dispatch.h"

#include <stdint.h>

void cli_m_range(const hum_tuning *t, char *out, size_t cap)
{
    if (t->m_max == INT64_MAX)
        snprintf(out, cap, "M %lld..inf", (long long)t->m_min);
    else
        snprintf(out, cap, "M %lld..%lld", (long long)t->m_min, (long long)t->m_max);
}

void cli_tuning_text(const hum_tuning *t, char *out, size_t cap)
{
    snprintf(out, cap, "%s block %dx%dx%d, warp %dx%dx%d, %d stages, %d CTA%s/SM%s",
             t->kernel == HUM_GEMM_KERNEL_WGMMA ? "wgmma" : "mma.sync", t->block_m, t->block_n, t->block_k, t->warp_m,
             t->warp_n, t->warp_k, t->stages, t->ctas_per_sm, t->ctas_per_sm == 1 ? "" : "s",
             t->stream_k ? ", stream-K" : "");
}

void cli_print_dispatch(FILE *f, const hum_layer_dispatch *d, int indent)
{
    fprintf(f, "%*spolicy %s (%s) on %s, kernels for %s: %d M range%s\n", indent, "", d->policy_name,
            d->policy_origin, d->device_name, d->arch, d->row_count, d->row_count == 1 ? "" : "s");
    for (int32_t i = 0; i < d->row_count; i++) {
        const hum_dispatch_row *r = &d->rows[i];
        char range[48], tuning[160];
        cli_m_range(&r->tuning, range, sizeof range);
        cli_tuning_text(&r->tuning, tuning, sizeof tuning);
        fprintf(f, "%*s  %-13s %s; %lld B smem, %d threads; from %s\n", indent, "", range, tuning,
                (long long)r->smem_bytes, r->threads, r->origin);
    }
}
