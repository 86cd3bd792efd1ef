-- W8A8 promotion candidate (bench/w8a8-promote/README.md): the built-in table, every entry never promoted (promote_k = K: one accumulator set), 256 x 128 x 128 above M = 128.
local policy = require("hum.policy")
return { name = "w8a8-never", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      t.promote_k = layer.padded_k
      -- the M > 128 entries share the 65..128 entry's table: a copy of their own
      if e.m_min > 128 and t.block_m == 128 then
        local c = {}
        for k, v in pairs(t) do c[k] = v end
        c.block_m, c.warp_m = 256, 256
        e.tuning = c
      end
    end
    return list
  end }
