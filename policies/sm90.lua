-- Hopper (H100, H200; sm_90) and newer until a file of their own exists: 227 KiB of shared
-- memory per block, 132 SMs on H100/H200. The mma.sync path. Tuned on an H200 for
-- n=k=8192 uint4 g128 float16 (bench/NOTES.md): block K 256 halves the per-stage overhead at
-- small M; the layer falls back to block K 128 when the padded K is not a multiple of 256.
local ranges = require("hum.policy").ranges

local function mma(block_m, block_n, block_k, warp_m, warp_n, warp_k, stages)
  return { block_m = block_m, block_n = block_n, block_k = block_k, warp_m = warp_m, warp_n = warp_n,
           warp_k = warp_k, stages = stages, stream_k = true, ctas_per_sm = 1 }
end

return {
  name = "sm90",
  description = "Hopper and newer: 227 KiB shared memory, mma.sync with block K 256 for small M",
  applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer, overrides)
    return ranges({
      { 16, mma(16, 128, 256, 16, 32, 128, 4) },
      { 32, mma(32, 128, 256, 32, 32, 64, 4) },
      { 128, mma(64, 128, 256, 64, 32, 128, 3) },
      { math.huge, mma(128, 256, 128, 64, 64, 128, 4) },
    })
  end,
}
