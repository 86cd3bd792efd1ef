-- For side-by-side.py's --hum: the built-in tables with M 9..16 on mma_direct where it takes the
-- layer, tiles 16 x 64 x 256, warps 8 x 64 x 32 (two along M, each copying the weights itself:
-- mma_direct's warps are 8 rows), rings of 6 items (the fit may shorten them);
-- whole where the tiles fill 90 % of the SMs or more without a second wave, else stream-K summed
-- in the workspace (the 8-row tiles of bench/sweeps/s50/d, one range up).
local policy = require("hum.policy")
return {
  name = "d16",
  applies = function(device) return device.sm >= 80 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    if not layer.kernels.mma_direct then return list end
    for _, e in ipairs(list) do
      if e.m_min <= 16 and e.m_max >= 9 and e.m_max <= 16 then
        local tiles = layer.padded_n / 64
        local whole = tiles <= device.sm_count and tiles * 10 >= device.sm_count * 9
        e.tuning = { kernel = "mma_direct", block_m = 16, warp_m = 8, block_k = 256, block_n = 64, warp_n = 64,
                     warp_k = 32, stages = 6, ctas_per_sm = 1, stream_k = not whole,
                     stream_k_sum = whole and "output" or "workspace" }
      end
    end
    return list
  end,
}
