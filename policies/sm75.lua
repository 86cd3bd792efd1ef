-- Turing (T4, RTX 20xx; sm_75): 64 KiB of shared memory per block, mma.sync m16n8k8, no
-- cp.async, so two stages. Values: humming-digest.md section 6.1 (SM75 row), to be tuned.
local ranges = require("hum.policy").ranges

return {
  name = "sm75",
  description = "Turing: 64 KiB shared memory, 2 stages",
  applies = function(device) return device.sm == 75 end,
  tunings = function(device, layer, overrides)
    return ranges({
      { 16, { block_m = 16, block_n = 128, block_k = 64, warp_m = 16, warp_n = 32, warp_k = 64,
              stages = 2, stream_k = true, ctas_per_sm = 2 } },
      { 64, { block_m = 64, block_n = 128, block_k = 64, warp_m = 64, warp_n = 32, warp_k = 64,
              stages = 2, stream_k = true, ctas_per_sm = 2 } },
      { math.huge, { block_m = 64, block_n = 256, block_k = 64, warp_m = 64, warp_n = 64, warp_k = 64,
                     stages = 2, stream_k = true, ctas_per_sm = 1 } },
    })
  end,
}
