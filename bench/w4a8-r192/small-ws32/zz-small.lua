-- 8-bit A at M <= 16 on wgmma_ws (the M 17..32 entry's 32-row tiles) instead of mma.sync, whose
-- e4m3 m16n8k32 sm_90 runs as float16 HMMA after converting both operands (call 1, session 8)
local policy = require('hum.policy')
return { name = 'small-ws32', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    local a, b = list[1], list[2]
    if a and b and (a.tuning.kernel or 'mma') == 'mma' and b.tuning.kernel == 'wgmma_ws' then
      local c = {}
      for k, v in pairs(b.tuning) do c[k] = v end
      a.tuning = c
    end
    return list
  end }
