-- The built-in tables with quantize_a on every wgmma_ws entry from M = 385 (the fit keeps it on
-- dense layers of 8-bit A per token): W8A8's multicast entry at M 385..1024 and W4A8 MXFP4's
-- entries from 385 take the fused path too, for bench/sweeps/s46/s46-b.sh's A/B against the
-- built-in tables (which fuse W8A8 above M = 1024 only).
local policy = require("hum.policy")
return {
  name = "quantize_a_385",
  applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      if e.m_min >= 385 and e.tuning.kernel == "wgmma_ws" then
        local t = {}
        for k, v in pairs(e.tuning) do t[k] = v end
        t.quantize_a = true
        e.tuning = t
      end
    end
    return list
  end,
}
