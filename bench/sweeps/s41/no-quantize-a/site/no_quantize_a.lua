-- The built-in tables with every GEMM's quantize_a off: 8-bit A quantized by a kernel before
-- the GEMM, as before session 41 (bench/sweeps/s41/s41-b.sh's A/B).
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
