-- For side-by-side.py's --hum: the built-in tables with M <= 16 on mma_direct where it takes the
-- layer: M <= 8 on tile a's (8 x 64 x 256, warps 8 x 64 x 32, a ring of 4 items), M 9..16 on 16 x
-- 64 x 256, two warps of 8 rows along M (each loads the weights it multiplies: the pair reads them
-- twice from L2) x four along K of 64, a ring of 4; whole where the tiles fill 90 % of the SMs or
-- more without a second wave, else stream-K summed in the workspace.
local policy = require("hum.policy")
return {
  name = "direct-e",
  applies = function(device) return device.sm >= 80 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    if not layer.kernels.mma_direct then return list end
    for _, e in ipairs(list) do
      if e.m_max <= 16 then
        local tiles = layer.padded_n / 64
        local whole = tiles <= device.sm_count and tiles * 10 >= device.sm_count * 9
        local rows = e.m_max <= 8 and 8 or 16
        e.tuning = { kernel = "mma_direct", block_m = rows, warp_m = 8, block_k = 256, block_n = 64, warp_n = 64,
                     warp_k = rows == 8 and 32 or 64, stages = 4, ctas_per_sm = 1, stream_k = not whole,
                     stream_k_sum = whole and "output" or "workspace" }
      end
    end
    return list
  end,
}
