-- w4a8z's device call: the built-in tables with e4m3 A's accumulators promoted every 256 of K
local policy = require('hum.policy')
return {
  name = 'w4a8z-promote256',
  applies = function(device) return true end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do e.tuning.promote_k = 256 end
    return list
  end,
}
