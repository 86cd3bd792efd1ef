-- Ampere data-center GPUs (A100, A30; sm_80) and Jetson Orin (sm_87): 163 KiB of shared memory
-- per block, cp.async pipelines. sm_87 keeps at most 3 stages (humming-digest.md section 6).
-- The shapes that won on the H200 (bench/NOTES.md), with stages cut to the 163 KiB budget; not
-- measured on an A100.
local policy = require("hum.policy")
local ranges, mma = policy.ranges, policy.mma_tuning

return {
  name = "sm80",
  description = "Ampere A100/A30 and Orin: 163 KiB shared memory",
  applies = function(device) return device.sm == 80 or device.sm == 87 end,
  tunings = function(device, layer, overrides)
    local s = device.sm == 87 and 3 or 4
    return ranges({
      { 16, mma(16, 128, 256, 16, 32, 128, s) },
      { 32, mma(32, 128, 256, 32, 32, 64, 3) },
      { 64, mma(64, 128, 128, 64, 32, 64, s) },
      { math.huge, mma(128, 256, 128, 64, 64, 128, 3) },
    })
  end,
}
