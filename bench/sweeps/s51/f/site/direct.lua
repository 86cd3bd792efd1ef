-- For side-by-side.py's --hum: the built-in tables with M <= 8 on mma_direct where it takes the
-- layer, tiles 8 x 32 x 256, warps 8 x 32 x 32, a ring of 8 items, every tile whole (no stream-K).
local policy = require("hum.policy")
return {
  name = "direct-f",
  applies = function(device) return device.sm >= 80 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    if not layer.kernels.mma_direct then return list end
    for _, e in ipairs(list) do
      if e.m_max <= 8 then
        e.tuning = { kernel = "mma_direct", block_m = 8, warp_m = 8, block_k = 256, block_n = 32, warp_n = 32,
                     warp_k = 32, stages = 8, ctas_per_sm = 1, stream_k = false, stream_k_sum = "output" }
      end
    end
    return list
  end,
}
