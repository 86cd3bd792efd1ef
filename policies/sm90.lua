-- Hopper (H100, H200; sm_90) and newer until a file of their own exists: 227 KiB of shared
-- memory per block, 132 SMs on H100/H200. The mma.sync path for now. Values to be tuned.
local ranges = require("hum.policy").ranges

return {
  name = "sm90",
  description = "Hopper and newer: 227 KiB shared memory, 4 stages",
  applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer, overrides)
    return ranges({
      { 16, { block_m = 16, block_n = 256, block_k = 128, warp_m = 16, warp_n = 64, warp_k = 128,
              stages = 4, stream_k = true, ctas_per_sm = 1 } },
      { 32, { block_m = 32, block_n = 256, block_k = 128, warp_m = 32, warp_n = 64, warp_k = 128,
              stages = 4, stream_k = true, ctas_per_sm = 1 } },
      { 64, { block_m = 64, block_n = 256, block_k = 64, warp_m = 64, warp_n = 64, warp_k = 64,
              stages = 4, stream_k = true, ctas_per_sm = 1 } },
      { math.huge, { block_m = 128, block_n = 256, block_k = 64, warp_m = 64, warp_n = 64, warp_k = 64,
                     stages = 4, stream_k = true, ctas_per_sm = 1 } },
    })
  end,
}
