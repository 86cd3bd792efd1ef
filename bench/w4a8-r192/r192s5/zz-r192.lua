-- W4A8 / 8-bit A above M = 64: the 128-row wgmma_ws entries as 192-row tiles (call 1, session 8)
local policy = require('hum.policy')
return { name = 'w4a8-r192s5', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      if t.kernel == 'wgmma_ws' and t.block_m == 128 and t.block_k == 128 then t.block_m, t.warp_m, t.stages = 192, 192, 5 end
    end
    return list
  end }
