-- Ampere consumer and workstation GPUs (RTX 30xx, A10, A40, RTX A6000; sm_86): 99 KiB of
-- shared memory per block, so three stages.
local policy = require("hum.policy")
local ranges, mma = policy.ranges, policy.mma_tuning

-- 99 KiB per block: the H200's small-M shapes (bench/NOTES.md) with three stages, smaller tiles
-- for large M. Not measured on this class of GPU.
return {
  name = "sm86",
  description = "Ampere GA10x: 99 KiB shared memory, 3 stages",
  applies = function(device) return device.sm == 86 end,
  tunings = function(device, layer, overrides)
    -- scales along K (layer.kgroup_k: 8-bit A's K groups) travel in the stages: two 128 x 256 x 128
    -- stages of 8-bit A (its block K) then pass 99 KiB by a kilobyte; 128-column tiles instead
    local kgroup = (layer.kgroup_k or 0) > 0
    return ranges({
      { 16, mma(16, 128, 256, 16, 32, 128, 3) },
      { 32, mma(32, 128, 128, 32, 32, 64, 4) },
      { 64, mma(64, 128, 64, 64, 32, 64, 4) },
      { math.huge, kgroup and mma(128, 128, 64, 64, 32, 64, 3) or mma(128, 256, 64, 64, 64, 64, 3) },
    })
  end,
}
