-- Ada (L4, L40S, RTX 40xx; sm_89): 99 KiB of shared memory per block like sm_86, plus FP8
-- tensor cores. Values to be tuned.
local ranges = require("hum.policy").ranges

return {
  name = "sm89",
  description = "Ada: 99 KiB shared memory, 3 stages",
  applies = function(device) return device.sm == 89 end,
  tunings = function(device, layer, overrides)
    return ranges({
      { 16, { block_m = 16, block_n = 128, block_k = 128, warp_m = 16, warp_n = 32, warp_k = 128,
              stages = 3, stream_k = true, ctas_per_sm = 1 } },
      { 64, { block_m = 64, block_n = 128, block_k = 64, warp_m = 64, warp_n = 32, warp_k = 64,
              stages = 3, stream_k = true, ctas_per_sm = 1 } },
      { math.huge, { block_m = 128, block_n = 256, block_k = 64, warp_m = 64, warp_n = 64, warp_k = 64,
                     stages = 3, stream_k = true, ctas_per_sm = 1 } },
    })
  end,
}
