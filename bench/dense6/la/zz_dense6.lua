-- bench/sweeps/dense6.sh's candidate la as a site policy (bench/dense6/README.md)
local policy = require("hum.policy")
local mma = policy.mma_tuning
local function ws(bm, bn, bk, wn, st, sum)
  local t = mma(bm, bn, bk, bm, wn, bk, st)
  t.kernel = "wgmma_ws"
  if sum then t.stream_k_sum = "workspace" end
  return t
end
local function sk(bn, wn, wk, st, ctas)
  local t = mma(16, bn, 256, 16, wn, wk, st, ctas)
  t.stream_k_sum = "workspace"
  return t
end
return { name = "dense6-la", applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer) return policy.ranges({ { 16, sk(128, 32, 128, 4) }, { 128, ws(64, 128, 256, 16, 4, true) }, { math.huge, ws(256, 128, 128, 16, 2, true) } }) end }
