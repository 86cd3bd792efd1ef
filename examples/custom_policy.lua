-- A site policy: layered over the built-in policies (listed in deploy.yaml's policy_paths), it
-- wins on every device it applies to. This one takes over H100/H200-class GPUs and uses
-- smaller N tiles for narrow layers; docs/policies.md describes every field.
local ranges = require("hum.policy").ranges

local function tile(bm, bn, bk, wm, wn, wk, stages)
  return { block_m = bm, block_n = bn, block_k = bk, warp_m = wm, warp_n = wn, warp_k = wk,
           stages = stages, stream_k = true, ctas_per_sm = 1 }
end

return {
  name = "site-hopper",
  description = "example: narrow layers get 128-wide N tiles on Hopper",
  applies = function(device)
    return device.sm >= 90 and device.sm_count >= 114
  end,
  tunings = function(device, layer, overrides)
    local bn = (layer.n or math.huge) <= 4096 and 128 or 256
    return ranges({
      { 16, tile(16, bn, 128, 16, bn / 4, 128, 4) },
      { 64, tile(64, bn, 64, 64, bn / 4, 64, 4) },
      { math.huge, tile(128, 256, 64, 64, 64, 64, 4) },
    })
  end,
}
