-- Candidate MoE expert tables for sm_90 (bench/moe-tiles/README.md): ranges of rows per expert
-- 1 | 2..16 | 17..32 | 33..64 | 65..inf; block M as built in (one align for both GEMMs).
local policy = require("hum.policy")
local ranges, mma = policy.ranges, policy.mma_tuning
local function wg(bm, bn, bk, wn, st, ctas)
  local t = mma(bm, bn, bk, bm, wn, bk, st, ctas); t.kernel = "wgmma"; return t
end
return { name = "moe-mx128", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer, overrides, compute)
    if not compute or compute.gemm_type == "dense" then return nil end
    return ranges({ { 1, mma(16, 128, 128, 16, 32, 64, 6) }, { 16, mma(16, 128, 128, 16, 32, 64, 6, 2) }, { 32, wg(32, 128, 128, 16, 6) }, { 64, wg(64, 128, 128, 16, 4) }, { math.huge, wg(64, 128, 128, 16, 4) } })
  end }
