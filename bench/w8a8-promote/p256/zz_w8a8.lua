-- W8A8 promotion candidate (bench/w8a8-promote/README.md): the built-in table, every entry promoted every 256 of K (every other 128-column stage), the same tiles.
local policy = require("hum.policy")
return { name = "w8a8-p256", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      t.promote_k = 256
    end
    return list
  end }
