-- For side-by-side.py's --hum: the built-in tables as they were before mma_direct (the staged
-- mma.sync tiles at M <= 8): the built-in policy asked with layer.kernels.mma_direct false.
local policy = require("hum.policy")
return {
  name = "staged",
  applies = function(device) return device.sm >= 80 end,
  tunings = function(device, layer)
    local l, kernels = {}, {}
    for k, v in pairs(layer) do l[k] = v end
    for k, v in pairs(layer.kernels) do kernels[k] = v end
    kernels.mma_direct = false
    l.kernels = kernels
    return policy.below(device, l)
  end,
}
