-- Hopper (H100, H200; sm_90) and newer until a file of their own exists: 227 KiB of shared
-- memory per block, 132 SMs on H100/H200. The mma.sync path. Tuned on an H200 for
-- n=k=8192 uint4 g128 float16 (bench/NOTES.md): block K 256 halves the per-stage overhead at
-- small M; the layer falls back to block K 128 when the padded K is not a multiple of 256.
-- From M = 17 on, a layer the warpgroup-MMA kernel (kernels/gemm/gemm_wgmma.cu) takes on this
-- target (layer.kernels.wgmma, which C's rules decide; act-order layers too: their A is permuted
-- once per forward, kernels/prep/permute_a.cu) runs it: 32 x 128 x 256 tiles up to M = 32,
-- 64 x 128 x 256 up to M = 64, 128 x 128 x 128 up to M = 128, 256 x 128 x 128 above (256 x 128
-- x 64 where three such stages do not fit) (bench/NOTES.md, "wgmma kernel", "tile sweep" and
-- "session 3"); mma.sync stays faster up to M = 16 (wgmma 16 x 128 x 256: 28.5 us at M = 1
-- against 24.8).
local policy = require("hum.policy")
local ranges, mma = policy.ranges, policy.mma_tuning

-- M <= 16: block N 64 when the layer has at most a quarter as many 128-column tiles as the
-- device has SMs (N = 4096 on 132 SMs: 32 tiles, each tile's K shared by ~4 CTAs whose stream-K
-- fix-ups run one after the other); 64-column tiles halve that chain (bench/NOTES.md, perf-3).
-- Measured for 4-bit weights (narrower and odd widths' warps span 32 or 64 columns, which
-- would leave one or two warps along N; 8-bit is untimed).
local function small_m(device, layer)
  if layer.weight_bits == 4 and layer.padded_n / 128 * 4 <= device.sm_count then
    return mma(16, 64, 256, 16, 16, 128, 6)
  end
  return mma(16, 128, 256, 16, 32, 128, 4)
end

-- Two warpgroups of one 64-row slab each (warp_n 16); a warp spans block_m and block_k.
local function wgmma(block_m, block_k, stages)
  local t = mma(block_m, 128, block_k, block_m, 16, block_k, stages)
  t.kernel = "wgmma"
  return t
end

return {
  name = "sm90",
  description = "Hopper and newer: 227 KiB shared memory, mma.sync with block K 256 for small M, "
    .. "wgmma from M = 17 on sm_90",
  applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer, overrides, compute)
    -- Expert GEMMs (docs/moe.md): M counts rows per expert, and a MoE layer's gate/up and down
    -- GEMMs share one align, so block_m follows M alone (16, 32, 64, 128), whichever family
    -- runs (act-order experts run mma.sync). Qwen3-30B-A3B gate/up on the H200 (moegemm-2,
    -- GEMM-only): two CTAs per SM from 2 rows per expert (M = 128: 91 against 110 us, M = 1 keeps
    -- one: 18 against 21), 128 x 256 x 64 tiles above 64 rows (M = 4096: 539 against 645 us
    -- for 128 x 128 x 128, 1391 for 256-row blocks, whose padding per expert costs more than the
    -- larger tile saves).
    if compute and compute.gemm_type ~= "dense" then
      local w = layer.kernels.wgmma
      local wide = mma(128, 256, 64, 128, 32, 64, 4)
      wide.kernel = "wgmma"
      return ranges({
        { 1, mma(16, 128, 256, 16, 32, 128, 4) },
        { 16, mma(16, 128, 256, 16, 32, 128, 4, 2) },
        { 32, w and wgmma(32, 256, 5) or mma(32, 128, 256, 32, 32, 64, 4) },
        { 64, w and wgmma(64, 256, 4) or mma(64, 128, 256, 64, 32, 128, 3) },
        { math.huge, w and wide or mma(128, 256, 128, 64, 64, 128, 4) },
      })
    end
    if layer.kernels.wgmma then
      -- three 256 x 128 x 128 stages fit 227 KiB with 4-bit weights and scale groups of 32 or
      -- more; wider weights or finer groups take four 256 x 128 x 64 stages
      local deep = layer.weight_bits and layer.weight_bits <= 4 and layer.kernel_group >= 32
      return ranges({
        { 16, small_m(device, layer) },
        { 32, wgmma(32, 256, 5) },
        { 64, wgmma(64, 256, 4) },
        { 128, wgmma(128, 128, 4) },
        { math.huge, deep and wgmma(256, 128, 3) or wgmma(256, 64, 4) },
      })
    end
    return ranges({
      { 16, small_m(device, layer) },
      { 32, mma(32, 128, 256, 32, 32, 64, 4) },
      { 128, mma(64, 128, 256, 64, 32, 128, 3) },
      { math.huge, mma(128, 256, 128, 64, 64, 128, 4) },
    })
  end,
}
