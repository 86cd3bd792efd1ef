-- W8A8 / W4A8 stage candidate (bench/a8-pairs/README.md): the built-in table, its 128 x 128 x 128
-- wgmma_ws entries with five stages instead of four (a pair waits for two slots before it starts).
local policy = require("hum.policy")
return { name = "a8-s5", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      if t.kernel == "wgmma_ws" and t.block_m == 128 and t.block_k == 128 then t.stages = 5 end
    end
    return list
  end }
