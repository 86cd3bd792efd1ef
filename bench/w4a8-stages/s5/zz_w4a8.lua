-- W4A8 stage candidate (bench/w4a8-stages/README.md): the built-in table with its last entry (M > 128
-- for 8-bit A: 128 x 128 x 128 on wgmma_ws) at 5 stages.
local policy = require("hum.policy")
return { name = "w4a8-s5", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    list[#list].tuning.stages = 5
    return list
  end }
