-- The built-in tables with quantize_a off: the quantizer kernel before the GEMM, as before
-- session 42 (bench/sweeps/s42/s42-c.sh's A/B against the built-in tables).
local policy = require("hum.policy")
return {
  name = "no_quantize_a",
  applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      if e.tuning.quantize_a then
        local t = {}
        for k, v in pairs(e.tuning) do t[k] = v end
        t.quantize_a = false
        e.tuning = t
      end
    end
    return list
  end,
}
