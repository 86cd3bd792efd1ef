# Candidate MoE tunings for sm_90 as site policies (bench/moe-sweep/README.md): mk DIR R1 R16 R32 R64 RBIG
# writes DIR/zz_moe.lua (sorted after sm90.lua, so it wins on sm >= 90), whose ranges of rows per
# expert are 1, 2..16, 17..32, 33..64 and 65..inf. wg(bm, bn, bk, warp_n, stages[, ctas]) is a wgmma
# tile; mma(...) policy.mma_tuning's arguments.
mk() {
  mkdir -p "$1"
  cat > "$1/zz_moe.lua" <<LUA
local DOWN_K64 = ${DOWN_K64:-false}
local policy = require("hum.policy")
local ranges, mma = policy.ranges, policy.mma_tuning
local K
-- block K 64 (more stages: the same bytes) for the down GEMM's short K when DOWN_K64 is set
local function wg(bm, bn, bk, wn, st, ctas)
  if DOWN_K64 and K <= 1024 and bk > 64 then st = math.min(8, st * bk / 64); bk = 64 end
  local t = mma(bm, bn, bk, bm, wn, bk, st, ctas); t.kernel = "wgmma"; return t
end
return { name = "moe-$(basename "$1")", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer, overrides, compute)
    K = layer.padded_k
    return ranges({ { 1, $2 }, { 16, $3 }, { 32, $4 }, { 64, $5 }, { math.huge, $6 } })
  end }
LUA
}
mk_all() { # root
  mk "$1/c1" "mma(16, 64, 256, 16, 16, 128, 6)" "wg(16, 128, 256, 16, 6)" "wg(48, 128, 128, 16, 6)" \
     "wg(96, 128, 128, 16, 6)" "wg(160, 128, 128, 16, 4)"
  mk "$1/c2" "mma(16, 128, 256, 16, 32, 128, 4, 2)" "mma(16, 64, 256, 16, 16, 128, 6, 2)" "wg(32, 128, 256, 16, 5)" \
     "wg(80, 128, 128, 16, 6)" "wg(144, 128, 128, 16, 4)"
  mk "$1/c3" "wg(16, 128, 256, 16, 6)" "wg(32, 128, 256, 16, 5)" "wg(48, 256, 128, 32, 4)" \
     "wg(96, 256, 64, 32, 4)" "wg(192, 128, 64, 16, 5)"
  mk "$1/c4" "mma(16, 128, 256, 16, 32, 128, 4)" "wg(16, 256, 128, 32, 6)" "wg(64, 128, 128, 16, 6)" \
     "wg(128, 256, 64, 32, 4)" "wg(128, 128, 128, 16, 5)"
  mk "$1/c5" "mma(16, 128, 256, 16, 32, 128, 4)" "mma(16, 128, 128, 16, 32, 128, 6, 2)" "wg(64, 128, 128, 16, 6)" \
     "wg(112, 128, 128, 16, 6)" "wg(176, 128, 64, 16, 6)"
  mk "$1/c6" "wg(16, 128, 256, 16, 4, 2)" "wg(16, 128, 128, 16, 6, 2)" "wg(32, 128, 128, 16, 4, 2)" \
     "wg(96, 128, 64, 16, 4, 2)" "wg(128, 128, 64, 16, 4, 2)"
  # c1 with block K 64 on the down GEMM (K = 768: 12 k-blocks per tile instead of 6)
  DOWN_K64=true mk "$1/c7" "mma(16, 64, 256, 16, 16, 128, 6)" "wg(16, 128, 256, 16, 6)" "wg(48, 128, 128, 16, 6)" \
     "wg(96, 128, 128, 16, 6)" "wg(160, 128, 128, 16, 4)"
}
# Compiles every candidate's two expert GEMM tables (gate_up and down) for sm_90a into
# $HUM_CACHE_DIR on a host without a GPU, so that run.sh on the GPU host finds them cached
# (same NVRTC version): precompile_all ROOT HUM_BINARY
precompile_all() {
  mk_all "$1"
  for v in c1 c2 c3 c4 c5 c6 c7; do
    HUM_POLICY_PATH="$1/$v" "$2" compile --arch sm_90a --moe e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
  done
}
