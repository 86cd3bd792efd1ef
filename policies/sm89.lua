-- Ada (L4, L40S, RTX 40xx; sm_89): 99 KiB of shared memory per block like sm_86, plus FP8
-- tensor cores: sm_86's table (policies/sm86.lua), which fits both; which activation types run
-- on the target is C's rule, not the table's.
local policy = require("hum.policy")

return {
  name = "sm89",
  description = "Ada: 99 KiB shared memory, 3 stages (sm86's table)",
  applies = function(device) return device.sm == 89 end,
  tunings = function(device, layer)
    local ampere = {}
    for k, v in pairs(device) do ampere[k] = v end
    ampere.sm = 86
    return policy.below(ampere, layer)
  end,
}
