-- Turing (T4, RTX 20xx; sm_75): 64 KiB of shared memory per block, mma.sync m16n8k8, no
-- cp.async, so two stages. Values: humming-digest.md section 6.1 (SM75 row), to be tuned.
local policy = require("hum.policy")
local ranges, mma = policy.ranges, policy.mma_tuning

return {
  name = "sm75",
  description = "Turing: 64 KiB shared memory, 2 stages",
  applies = function(device) return device.sm == 75 end,
  tunings = function(device, layer, overrides)
    -- Up to M = 64 the tiles are small enough for two CTAs per SM (the last argument), but for
    -- 8-bit weights two stages of the 64-row tile take 33 KiB: two of them overflow the 64 KiB.
    local ctas = layer.weight_bits == 8 and 1 or 2
    return ranges({
      { 16, mma(16, 128, 64, 16, 32, 64, 2, 2) },
      { 64, mma(64, 128, 64, 64, 32, 64, 2, ctas) },
      { math.huge, mma(64, 256, 64, 64, 64, 64, 2) },
    })
  end,
}
