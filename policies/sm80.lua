-- Ampere data-center GPUs (A100, A30; sm_80) and Jetson Orin (sm_87): 163 KiB of shared memory
-- per block, cp.async pipelines. sm_87 keeps at most 3 stages (humming-digest.md section 6).
-- Values to be tuned.
local ranges = require("hum.policy").ranges

return {
  name = "sm80",
  description = "Ampere A100/A30 and Orin: 163 KiB shared memory",
  applies = function(device) return device.sm == 80 or device.sm == 87 end,
  tunings = function(device, layer, overrides)
    local stages = device.sm == 87 and 3 or 4
    return ranges({
      { 16, { block_m = 16, block_n = 128, block_k = 128, warp_m = 16, warp_n = 32, warp_k = 128,
              stages = stages, stream_k = true, ctas_per_sm = 1 } },
      { 32, { block_m = 32, block_n = 128, block_k = 128, warp_m = 32, warp_n = 32, warp_k = 128,
              stages = stages, stream_k = true, ctas_per_sm = 1 } },
      { 64, { block_m = 64, block_n = 128, block_k = 64, warp_m = 64, warp_n = 32, warp_k = 64,
              stages = stages, stream_k = true, ctas_per_sm = 1 } },
      { math.huge, { block_m = 128, block_n = 256, block_k = 64, warp_m = 64, warp_n = 64, warp_k = 64,
                     stages = stages, stream_k = true, ctas_per_sm = 1 } },
    })
  end,
}
