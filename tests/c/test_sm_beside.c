/* hum_sm_blocks_beside (runtime/src/cuda/device.c), the rule that lets act-order's GEMM start
 * during the permutation (kernels/prep/permute_a.cu): H200 limits, the kernels of the n = k =
 * 8192 uint4 g128 table at M <= 16 and above, and the register allocation unit that decides
 * between 2 and 3 guests. */
#include "device.h"
#include "rt_test.h"

#include <stdio.h>

int main(void)
{
    /* sm_90: 2048 threads, 64 K registers, 228 KB of shared memory, 32 blocks, 1 KB reserved */
    const hum_sm_limits h200 = {2048, 65536, 233472, 32, 1024};
    const hum_block_usage permute = hum_sm_block_usage(&h200, 256, 32, 16384);
    RT_CHECK(permute.registers == 8192 && permute.smem_bytes == 17408 && permute.threads == 256,
             "permutation block: %lld threads, %lld registers, %lld B", (long long)permute.threads,
             (long long)permute.registers, (long long)permute.smem_bytes);
    /* mma.sync 16 x 128 x 256, 8 warps, 166 registers: 5376 per warp after rounding, 43008 in
     * all, so 22528 are left: two permutation blocks, not the 2.75 the thread count gives */
    const hum_block_usage mma = hum_sm_block_usage(&h200, 256, 166, 108544 + 1024);
    RT_CHECK(mma.registers == 43008, "mma.sync CTA: %lld registers", (long long)mma.registers);
    RT_CHECK(hum_sm_blocks_beside(&h200, mma, 1, permute) == 2, "got %d", hum_sm_blocks_beside(&h200, mma, 1, permute));
    /* 160 registers need no rounding: 40960, three blocks beside */
    RT_CHECK(hum_sm_blocks_beside(&h200, hum_sm_block_usage(&h200, 256, 160, 109568), 1, permute) == 3, "got %d", hum_sm_blocks_beside(&h200, hum_sm_block_usage(&h200, 256, 160, 109568), 1, permute));
    /* two such CTAs take 86016 registers: more than the SM has, nothing beside */
    RT_CHECK(hum_sm_blocks_beside(&h200, mma, 2, permute) == 0, "got %d", hum_sm_blocks_beside(&h200, mma, 2, permute));
    /* wgmma_ws 256 x 128 x 128, 384 threads at 168 registers (64512) and 219648 B: none */
    RT_CHECK(hum_sm_blocks_beside(&h200, hum_sm_block_usage(&h200, 384, 168, 219648), 1, permute) == 0, "got %d", hum_sm_blocks_beside(&h200, hum_sm_block_usage(&h200, 384, 168, 219648), 1, permute));
    /* shared memory bounds it: 200 KB resident leaves room for one 17 KB block of 256 threads
     * at 16 registers beside 128 threads at 32 */
    const hum_block_usage small = hum_sm_block_usage(&h200, 128, 32, 200 * 1024);
    RT_CHECK(hum_sm_blocks_beside(&h200, small, 1, hum_sm_block_usage(&h200, 256, 16, 16384)) == 1, "got %d", hum_sm_blocks_beside(&h200, small, 1, hum_sm_block_usage(&h200, 256, 16, 16384)));
    /* the block limit: 31 resident blocks leave one */
    const hum_block_usage tiny = hum_sm_block_usage(&h200, 32, 8, 0);
    RT_CHECK(hum_sm_blocks_beside(&h200, tiny, 31, tiny) == 1, "got %d", hum_sm_blocks_beside(&h200, tiny, 31, tiny));
    return rt_test_result("test_sm_beside");
}
