-- Ampere consumer and workstation GPUs (RTX 30xx, A10, A40, RTX A6000; sm_86): 99 KiB of
-- shared memory per block, so three stages.
local ranges = require("hum.policy").ranges

-- 99 KiB per block: the H200's small-M shapes (bench/NOTES.md) with three stages, smaller tiles
-- for large M. Not measured on this class of GPU.
local function mma(block_m, block_n, block_k, warp_m, warp_n, warp_k, stages)
  return { block_m = block_m, block_n = block_n, block_k = block_k, warp_m = warp_m, warp_n = warp_n,
           warp_k = warp_k, stages = stages, stream_k = true, ctas_per_sm = 1 }
end

return {
  name = "sm86",
  description = "Ampere GA10x: 99 KiB shared memory, 3 stages",
  applies = function(device) return device.sm == 86 end,
  tunings = function(device, layer, overrides)
    return ranges({
      { 16, mma(16, 128, 256, 16, 32, 128, 3) },
      { 32, mma(32, 128, 128, 32, 32, 64, 4) },
      { 64, mma(64, 128, 64, 64, 32, 64, 4) },
      { math.huge, mma(128, 256, 64, 64, 64, 64, 3) },
    })
  end,
}
