-- Ampere consumer and workstation GPUs (RTX 30xx, A10, A40, RTX A6000; sm_86): 99 KiB of
-- shared memory per block, so three stages. Values to be tuned.
local ranges = require("hum.policy").ranges

return {
  name = "sm86",
  description = "Ampere GA10x: 99 KiB shared memory, 3 stages",
  applies = function(device) return device.sm == 86 end,
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
