-- For side-by-side.py's --hum: the built-in tables with M <= 8 on mma_direct where it takes the
-- layer, tiles 8 x 64 x 256, warps 8 x 64 x 32, rings of 4 items, two CTAs an SM (the ring in
-- shared memory leaves ~100 registers a thread, so 16 warps an SM fit); whole where the tiles fill
-- 90 % of both CTAs' slots or more without a second wave, else stream-K summed in the workspace.
local policy = require("hum.policy")
return {
  name = "ring4x2",
  applies = function(device) return device.sm >= 80 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    if not layer.kernels.mma_direct then return list end
    local slots = 2 * device.sm_count
    for _, e in ipairs(list) do
      if e.m_max <= 8 then
        local tiles = layer.padded_n / 64
        local whole = tiles <= slots and tiles * 10 >= slots * 9
        e.tuning = { kernel = "mma_direct", block_m = 8, warp_m = 8, block_k = 256, block_n = 64, warp_n = 64,
                     warp_k = 32, stages = 4, ctas_per_sm = 2, stream_k = not whole,
                     stream_k_sum = whole and "output" or "workspace" }
      end
    end
    return list
  end,
}
