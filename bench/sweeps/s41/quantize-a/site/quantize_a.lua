-- The built-in tables with quantize_a on their wgmma_ws entries above M = 1024 (the fit keeps it
-- on dense layers of 8-bit A per token: W8A8's entry above 1024, W4A8 MXFP4's above 2048), for
-- bench/sweeps/s41/s41-c.sh's A/B against the built-in tables (the quantizer kernel first).
local policy = require("hum.policy")
return {
  name = "quantize_a",
  applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      if e.m_min > 1024 and e.tuning.kernel == "wgmma_ws" then
        local t = {}
        for k, v in pairs(e.tuning) do t[k] = v end
        t.quantize_a = true
        e.tuning = t
      end
    end
    return list
  end,
}
