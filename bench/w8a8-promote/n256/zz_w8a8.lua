-- W8A8 promotion candidate (bench/w8a8-promote/README.md): the built-in table, every entry never promoted, 128 x 256 x 128 tiles (warp N 32) from M = 65.
local policy = require("hum.policy")
return { name = "w8a8-n256", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      t.promote_k = layer.padded_k
      if t.block_m >= 128 then t.block_m, t.warp_m, t.block_n, t.warp_n = 128, 128, 256, 32 end
    end
    return list
  end }
