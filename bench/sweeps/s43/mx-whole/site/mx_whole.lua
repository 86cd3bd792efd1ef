-- The built-in tables with W4A8 MXFP4's entry above M = 2048 whole (no stream-K), as `hum tune`
-- chose at M = 8192 in s43-a (1014.78 -> 901.07 µs, H100), for s43-b's A/B in rounds.
local policy = require("hum.policy")
return {
  name = "mx_whole",
  applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    local last = list[#list]
    if layer.a_dtype == "float8_e4m3fn" and layer.weight_float and layer.weight_bits == 4
        and last.m_min > 2048 and last.tuning.kernel == "wgmma_ws" then
      local t = {}
      for k, v in pairs(last.tuning) do t[k] = v end
      t.stream_k = false
      t.stream_k_sum = nil
      last.tuning = t
    end
    return list
  end,
}
