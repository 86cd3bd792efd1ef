-- For side-by-side.py's --hum: the built-in tables with rings of 4 items on the mma_direct
-- entries (the fit may shorten them further).
local policy = require("hum.policy")
return {
  name = "ring4",
  applies = function(device) return device.sm >= 80 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      if e.tuning.kernel == "mma_direct" then e.tuning.stages = 4 end
    end
    return list
  end,
}
