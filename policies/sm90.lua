-- Hopper (H100, H200; sm_90) and newer until a file of their own exists: 227 KiB of shared
-- memory per block, 132 SMs on H100/H200. Small M runs the mma.sync kernel; from M = 33 on,
-- sm_90 itself runs the warpgroup-MMA kernel (kernels/gemm_wgmma.cu) for the layers it takes
-- (4- and 8-bit weights, no act-order, K a multiple of 8). Values to be tuned (bench/NOTES.md).
local ranges = require("hum.policy").ranges

local function mma(block_m, block_n, block_k, warp_m, warp_n, warp_k)
  return { block_m = block_m, block_n = block_n, block_k = block_k, warp_m = warp_m, warp_n = warp_n,
           warp_k = warp_k, stages = 4, stream_k = true, ctas_per_sm = 1 }
end

-- warp_n / 16 slabs of 64 rows of N per warpgroup; a warp spans block_m and block_k.
local function wgmma(block_m, block_n, warp_n, stages)
  return { kernel = "wgmma", block_m = block_m, block_n = block_n, block_k = 64, warp_m = block_m,
           warp_n = warp_n, warp_k = 64, stages = stages, stream_k = true, ctas_per_sm = 1 }
end

local function wgmma_takes(device, layer)
  return device.sm == 90 and (layer.w_bits == 4 or layer.w_bits == 8) and not layer.act_order
    and layer.k % 8 == 0
end

return {
  name = "sm90",
  description = "Hopper and newer: 227 KiB shared memory; wgmma from M = 33 on sm_90",
  applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer, overrides)
    local small = {
      { 16, mma(16, 256, 128, 16, 64, 128) },
      { 32, mma(32, 256, 128, 32, 64, 128) },
    }
    local rest
    if wgmma_takes(device, layer) then
      rest = {
        { 64, wgmma(64, 256, 32, 6) },
        { 128, wgmma(128, 256, 32, 5) },
        { math.huge, wgmma(128, 256, 32, 5) },
      }
    else
      rest = {
        { 64, mma(64, 256, 64, 64, 64, 64) },
        { math.huge, mma(128, 256, 64, 64, 64, 64) },
      }
    end
    for _, row in ipairs(rest) do small[#small + 1] = row end
    return ranges(small)
  end,
}
