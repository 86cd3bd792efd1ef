/* Helpers of the wgmma GEMM tests (tests/c/test_gemm_wgmma_rules.c, tests/gpu/test_gemm_wgmma.c,
 * and the expert GEMM tests tests/c/test_expert_gemm_compile.c, tests/gpu/test_expert_gemm.c):
 * a runtime whose site policy sends every M to the warpgroup-MMA kernel, over three tile
 * shapes, so that the tests exercise the kernel through the real prepare and forward path. */
#ifndef HUM_WGMMA_TEST_H
#define HUM_WGMMA_TEST_H

#include "hum/hum_tools.h"

#include <stddef.h>

/* The site policy's M ranges: M <= 8 runs block 16 x 256 x 128 (two slabs, 6 stages), M <= 32
 * block 32 x 128 x 256 (the built-in sm90 policy's tile there; 5 stages): the small wgmma N of
 * 16 and 32 tokens; M <= 64 block 64 x 128 (two warpgroups of one slab),
 * M <= 100 block 128 x 128 (the built-in sm90 policy's tile up to M = 128), M <= 128 block
 * 128 x 256 (two warpgroups of two slabs), larger M block 256 x 128 (the built-in tile above
 * M = 128); stream-K throughout. It applies to every device, so a
 * compile for another arch than sm_90a meets the kernel's arch rule. A format string: the
 * family's policy name (%s: "wgmma" or "wgmma_ws") and the place of the epilogue tile (%s, c_tile:
 * "own", or "stage": wgmma_ws stages C in the last stage's A slot, in 2 row splits at 16 x 256 x
 * 128 and 256 x 128 x 64, 4 at 128 x 256 x 64, one elsewhere) go into every tuning. With "stage" the
 * 32-, 64- and 128 x 256-row ranges sum their stream-K slices in the workspace (the slices that
 * leave theirs there release the slot too), the others through the output. */
extern const char *const WGMMA_TEST_POLICY;

/* Block M that is not a power of two, which the wgmma kernel runs as instructions of N 48, 80,
 * 96 and 112, and above 128 as 128 + the rest (160 = 128 + 32, 176 = 128 + 48), and block M 8
 * (N 8), by rows per expert of the MoE GEMM types (M of the ranges): up to 1 row block
 * 8 x 128 x 128 (two slabs), up to 4 rows block 48 x 128 x 128, up to 16 block 80 x 128 x 128, up to 64 block 96 x 256 x 64 (two
 * slabs), up to 100 block 112 x 128 x 64, up to 150 block 160 x 128 x 64, above block
 * 176 x 128 x 64; stream-K throughout. sm_90 and newer only; a layer the wgmma kernel does not
 * take (act-order experts) gets one mma.sync tile. */
extern const char *const WGMMA_ODD_BLOCK_POLICY;

/* Writes WGMMA_TEST_POLICY for family `kernel` ("wgmma", "wgmma_ws") with c_tile `c_tile` ("own",
 * "stage") and a config naming it into a fresh directory (its path in dir[cap]) and creates a
 * runtime from that config; NULL (with a message printed) on failure. Release with
 * hum_runtime_destroy, then rt_rmtree(dir). */
hum_runtime *wgmma_test_runtime(const char *kernel, const char *c_tile, char *dir, size_t cap);
/* The same with the policy text `policy`. */
hum_runtime *wgmma_test_runtime_policy(const char *policy, char *dir, size_t cap);

#endif
