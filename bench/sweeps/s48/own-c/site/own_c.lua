-- The built-in tables with session 48's C-in-the-slot entries back on a C tile of their own, one
-- stage fewer: 3- and 4-bit integer codes of 16-bit A above M = 384 (256 x 128 x 128, three
-- stages -> two) and W8A8 e4m3's 192 x 128 x 128 tiles above M = 1024 (five -> four), none of
-- them multicast. The A/B's "before" for bench/sweeps/s48/s49-a.sh.
local policy = require("hum.policy")
return {
  name = "own_c",
  applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t0 = e.tuning
      if e.m_min >= 385 and t0.kernel == "wgmma_ws" and t0.c_tile == "stage" and not t0.multicast_a
          and t0.block_m >= 192 then
        local t = {}
        for k, v in pairs(t0) do t[k] = v end
        t.c_tile = "own"
        t.stages = t0.stages - 1
        e.tuning = t
      end
    end
    return list
  end,
}
