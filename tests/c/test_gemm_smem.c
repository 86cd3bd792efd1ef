/* The shared memory C plans with (runtime/src/layer/gemm_variant.c, hum_gemm_smem_bytes) is what
 * the compiled kernels use, proved on NVRTC cubins for both families, no GPU needed:
 *  - static: the cubin's .nv.shared.<kernel> sections (read from the ELF) hold the bytes the
 *    family's row says (gemm_family.c, static_smem), which planning adds to the dynamic shared
 *    memory the launch passes when it fits CTAs to the device; an indexed expert GEMM with 8-bit
 *    A adds its row tables (kernels/gemm/rows.cuh);
 *  - dynamic: the kernels' own static_assert recomputes the pipeline from the tile shapes and
 *    compares it with kSmemBytes of hum_constants.h: the header C writes compiles, and the same
 *    header with kSmemBytes 16 bytes off is refused naming that assert, so the check is live. */
#include "gemm_family.h"
#include "gemm_variant.h"
#include "hum/hum.h"
#include "jit.h"
#include "rt_test.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of the cubin's static shared-memory sections of `kernel`; -1 when the ELF is not one
 * or has no code section for the kernel (the proof would read the wrong thing). */
static int64_t static_smem(const void *cubin, size_t size, const char *kernel)
{
    const unsigned char *p = cubin;
    const Elf64_Ehdr *eh = cubin;
    if (size < sizeof *eh || memcmp(p, ELFMAG, SELFMAG) != 0 || p[EI_CLASS] != ELFCLASS64 ||
        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size || eh->e_shstrndx >= eh->e_shnum)
        return -1;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(p + eh->e_shoff);
    const char *names = (const char *)p + sh[eh->e_shstrndx].sh_offset;
    char text[256], shared[256];
    snprintf(text, sizeof text, ".text.%s", kernel);
    snprintf(shared, sizeof shared, ".nv.shared.%s", kernel);
    int64_t bytes = 0;
    int has_text = 0;
    for (int i = 0; i < eh->e_shnum; i++) {
        const char *name = names + sh[i].sh_name;
        has_text |= strcmp(name, text) == 0;
        if (strcmp(name, shared) == 0)
            bytes += (int64_t)sh[i].sh_size;
    }
    return has_text ? bytes : -1;
}

static hum_layer_config layer(int bits, int zero_point, int act_order, int64_t group)
{
    hum_layer_config c;
    memset(&c, 0, sizeof c);
    c.n = c.padded_n = 4096;
    c.k = c.padded_k = 4096;
    c.a_dtype = c.c_dtype = c.param_dtype = c.scale_dtype = HUM_DTYPE_FLOAT16;
    c.weight_dtype = HUM_DTYPE_UINT4 - 4 + bits; /* uintB: the width is the low byte */
    c.scale_type = HUM_SCALE_GROUP;
    c.group_size = c.kernel_group = group;
    c.scale_rows = c.padded_k / group;
    c.has_scale = 1;
    c.zero_point = zero_point ? HUM_ZERO_POINT_INT : HUM_ZERO_POINT_NONE;
    c.has_zero_point = zero_point;
    c.act_order = act_order;
    c.weight_bits = bits;
    return c;
}

/* Variant v compiled for arch through its constants header (written to header[2048]): the bytes
 * of its static shared memory (static_smem: -1 without its section); -2 when the header or the
 * compile failed (reported). */
static int64_t compiled_static(const char *cache, const char *what, const hum_gemm_variant *v, const char *arch,
                               char *header)
{
    const hum_gemm_family *f = hum_gemm_family_of(v->tuning->kernel);
    if (!RT_CHECK(hum_gemm_variant_check(v, arch) == HUM_OK && hum_gemm_constants(v, header, 2048) == HUM_OK,
                  "%s: %s", what, hum_last_error()))
        return -2;
    const hum_jit_request req = {f->source, header, f->entry, arch, 0, 0};
    hum_jit_result r;
    if (!RT_CHECK(hum_jit_compile(cache, &req, &r) == HUM_OK, "%s: %s", what, hum_last_error()))
        return -2;
    const int64_t bytes = static_smem(r.cubin, r.cubin_size, f->entry);
    hum_jit_result_free(&r);
    return bytes;
}

/* An indexed expert GEMM keeps its blocks' rows of A in static shared memory (kernels/gemm/rows.cuh:
 * with 8-bit A the math threads' row table, and a producer's table of their addresses), which
 * planning counts on top of the family's static bytes (gemm_variant.c). */
static void check_row_tables(const char *cache, const char *what, hum_tuning t, const char *arch, hum_dtype a)
{
    hum_layer_config c = layer(4, 0, 0, 4096);
    c.a_dtype = a;
    c.num_experts = 8;
    const hum_compute_config indexed = {.gemm_type = HUM_GEMM_MOE_INDEXED};
    const hum_gemm_variant v = {&c, &indexed, &t};
    char header[2048];
    const int64_t bytes = compiled_static(cache, what, &v, arch, header);
    const int64_t planned = hum_gemm_cta_smem_bytes(&v) - hum_gemm_smem_bytes(&v);
    if (bytes != -2 && RT_CHECK(bytes == planned,
                                "%s: the cubin has %lld bytes of static shared memory (-1: no section found), "
                                "planning counts %lld",
                                what, (long long)bytes, (long long)planned))
        printf("  %-38s %-6s static %lld bytes, as planned\n", what, arch, (long long)bytes);
}

static void check(const char *cache, const char *what, hum_layer_config c, hum_tuning t, const char *arch)
{
    const hum_compute_config dense = {.gemm_type = HUM_GEMM_DENSE};
    const hum_gemm_variant v = {&c, &dense, &t};
    const hum_gemm_family *f = hum_gemm_family_of(t.kernel);
    char header[2048];
    const int64_t bytes = compiled_static(cache, what, &v, arch, header);
    if (bytes == -2)
        return;
    if (RT_CHECK(bytes == f->static_smem,
                 "%s: the cubin has %lld bytes of static shared memory (-1: no section of %s found); the family "
                 "row says %d",
                 what, (long long)bytes, f->entry, f->static_smem))
        printf("  %-38s %-6s CTA %lld bytes = dynamic %lld (pipeline %lld) + static %lld; kSmemBytes checked\n",
               what, arch, (long long)hum_gemm_cta_smem_bytes(&v), (long long)hum_gemm_smem_bytes(&v),
               (long long)hum_gemm_pipeline_bytes(&v), (long long)bytes);
    /* the same header, kSmemBytes 16 bytes off */
    char wrong[2048];
    const char *at = strstr(header, "kSmemBytes = ");
    if (!RT_CHECK(at != NULL, "%s: no kSmemBytes in the header", what))
        return;
    const long long planned = strtoll(at + strlen("kSmemBytes = "), NULL, 10);
    snprintf(wrong, sizeof wrong, "%.*skSmemBytes = %lld;\n}\n", (int)(at - header), header, planned + 16);
    const hum_jit_request bad = {f->source, wrong, f->entry, arch, 0, 0};
    hum_jit_result r;
    RT_EXPECT_ERROR(hum_jit_compile(cache, &bad, &r), HUM_ERR_COMPILE, what, "kSmemBytes disagrees");
}

int main(void)
{
    char cache[4096];
    rt_tmpdir("gemm-smem", cache, sizeof cache);
    /* M range, block, warp, stages, stream-K, CTAs per SM, family, slices summed through C (0) */
    /* 2 warps on K */
    const hum_tuning small = {1, INT64_MAX, 16, 128, 256, 16, 32, 128, 4, 1, 1, HUM_GEMM_KERNEL_MMA, 0, 0, 0, 0, 0, 0, 0, 0};
    const hum_tuning large = {1, INT64_MAX, 128, 256, 64, 64, 64, 64, 3, 1, 1, HUM_GEMM_KERNEL_MMA, 0, 0, 0, 0, 0, 0, 0, 0};
    const hum_tuning odd = {1, INT64_MAX, 64, 128, 128, 64, 64, 64, 3, 1, 1, HUM_GEMM_KERNEL_MMA, 0, 0, 0, 0, 0, 0, 0, 0};
    const hum_tuning wgmma = {1, INT64_MAX, 128, 128, 128, 128, 16, 128, 4, 1, 1, HUM_GEMM_KERNEL_WGMMA, 0, 0, 0, 0, 0, 0, 0, 0};
    check(cache, "mma uint4 g128, split K", layer(4, 0, 0, 128), small, "sm_80");
    check(cache, "mma uint4 g128, 4 warps", layer(4, 0, 0, 128), large, "sm_86");
    check(cache, "mma uint3 g32 zero points act-order", layer(3, 1, 1, 32), odd, "sm_80");
    check(cache, "wgmma uint8 g64 zero points", layer(8, 1, 0, 64), wgmma, "sm_90a");
    const hum_tuning moe = {1, INT64_MAX, 64, 128, 128, 64, 16, 128, 4, 0, 1, HUM_GEMM_KERNEL_WGMMA, 0, 0, 0, 0, 0, 0, 0, 0};
    hum_tuning moe_ws = moe;
    moe_ws.kernel = HUM_GEMM_KERNEL_WGMMA_WS;
    const hum_tuning moe_mma = {1, INT64_MAX, 16, 128, 128, 16, 32, 64, 6, 0, 1, HUM_GEMM_KERNEL_MMA, 0, 0, 0, 0, 0, 0, 0, 0};
    /* 160 rows of 8-byte addresses: 1280 bytes, two 1024-byte units */
    const hum_tuning moe_ws160 = {1, INT64_MAX, 160, 128, 128, 160, 16, 128, 3, 0, 1, HUM_GEMM_KERNEL_WGMMA_WS, 0, 0, 0, 0, 0, 0, 0, 0};
    const hum_dtype e4m3 = HUM_DTYPE_FLOAT8_E4M3FN;
    check_row_tables(cache, "mma indexed uint4 x e4m3", moe_mma, "sm_89", e4m3);
    check_row_tables(cache, "wgmma indexed uint4 x e4m3", moe, "sm_90a", e4m3);
    check_row_tables(cache, "wgmma_ws indexed uint4 x e4m3", moe_ws, "sm_90a", e4m3);
    check_row_tables(cache, "wgmma_ws indexed uint4 x f16, 160 rows", moe_ws160, "sm_90a", HUM_DTYPE_FLOAT16);
    rt_rmtree(cache);
    return rt_test_result("test_gemm_smem");
}
