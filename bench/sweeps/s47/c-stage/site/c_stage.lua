-- The built-in tables with C staged in the last stage's slot (c_tile "stage"), one stage more
-- and A multicast to 2-CTA clusters (not with HUM_C_STAGE_MULTICAST=0 in the environment) on the
-- wgmma_ws entries from M = 385 that keep a C tile of their own: uint4's 256 x 128 x 128 on two
-- stages, W8A8's 192 x 128 x 128 on four above M = 1024 (not W4A8 MXFP4's, whose totals take
-- half of that tile). The slot is now released once the epilogue has read C back, before its
-- stores (11085a6); session 26 timed uint4 slower with it before. For bench/sweeps/s47/s47-d.sh.
local policy = require("hum.policy")
local MULTICAST = os.getenv("HUM_C_STAGE_MULTICAST") ~= "0"
return {
  name = "c_stage",
  applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t0 = e.tuning
      if e.m_min >= 385 and t0.kernel == "wgmma_ws" and t0.c_tile ~= "stage" and t0.block_m >= 192
          and not (layer.a8 and layer.weight_bits == 4) then
        local t = {}
        for k, v in pairs(t0) do t[k] = v end
        t.c_tile = "stage"
        t.stages = t0.stages + 1
        t.multicast_a = MULTICAST
        e.tuning = t
      end
    end
    return list
  end,
}
