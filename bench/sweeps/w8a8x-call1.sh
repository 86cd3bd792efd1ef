#!/bin/bash
# timeout: 92
# Session 10, engineer w8a8x (issue 9), device call 1: what the e4m3 promotion costs and buys.
# W8A8 e4m3, channel weight scales, per-token A (the layer quantizes A), H200.
#  time  n = k = 8192, M 1024 / 8192, the built-in tiles (128 rows to M = 1024, 192 above) under
#        promote_k 128 (built-in), 512, never (one accumulator set, same tiles), and never with
#        256-row tiles (what one set allows); hum bench checks each M against float64.
#  err   n = 2048, k = 32768 (and 8192), out = float16, M = 256 (the 128-row wgmma_ws tile, whole
#        tiles): hum bench's error against float64 of the same quantized A under promote_k 128 /
#        512 / 2048 / never.
#  lt    cuBLASLt fp8's kernel at M = 8192: its name and grid (ncu launch statistics).
#   R=out bash bench/sweeps/w8a8x-call1.sh
set -u
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
out=${R:-out}
mkdir -p "$out"
S=$out/summary.txt
H=build/runtime/hum
export HUM_CACHE_DIR=${HUM_CACHE_DIR:-$(mktemp -d)}
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader >"$S" 2>&1
fits() { [ $((90 - $(el))) -ge "$1" ]; }
P=$(mktemp -d)
pol() { # NAME LUA-ON-t (each kept entry's tuning, a copy): two entries, M <= 1024 and above (ONE set:
        # one, M = 256's)
    mkdir -p "$P/$1"
    cat >"$P/$1/zz-w8x.lua" <<LUA
local policy = require('hum.policy')
return { name = 'w8x-$1', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    local function at(m)
      for _, e in ipairs(list) do
        if m >= e.m_min and m <= e.m_max then
          local t = {}
          for k, v in pairs(e.tuning) do t[k] = v end
          $2
          return t
        end
      end
    end
    if ${ONE:-false} then return { { m_min = 1, m_max = math.huge, tuning = at(256) } } end
    return { { m_min = 1, m_max = 1024, tuning = at(1024) }, { m_min = 1025, m_max = math.huge, tuning = at(8192) } }
  end }
LUA
}
pol p128 ""
pol p512 "t.promote_k = 512"
pol p2048 "t.promote_k = 2048"
pol never "t.promote_k = layer.padded_k"
pol never256 "t.promote_k = layer.padded_k; t.block_m, t.warp_m = 256, 256"
# the error rows run whole tiles: stream-K slices would be summed in float32 (a promotion) every
# few k-blocks of K
ONE=true pol e128 "t.stream_k = false"
ONE=true pol e512 "t.stream_k = false; t.promote_k = 512"
ONE=true pol e2048 "t.stream_k = false; t.promote_k = 2048"
ONE=true pol enever "t.stream_k = false; t.promote_k = layer.padded_k"
bench() { # NAME POLICY SPEC MLIST NEED
    fits "$5" || { echo "bench $1: skipped at $(el) s" >>"$S"; return; }
    # the first row: cuBLASLt's trace (its algorithm: tile, stages, cluster)
    [ "$1" = t-p128 ] && export CUBLASLT_LOG_LEVEL=5 CUBLASLT_LOG_FILE=$out/lt.log
    HUM_POLICY_PATH=$P/$2 timeout $((90 - $(el))) "$H" bench --layer "$3" --m "$4" --warmup 5 --reps 30 \
        --out "$out/$1.json" >"$out/$1.log" 2>&1
    echo "bench $1: exit $? at $(el) s" >>"$S"
    grep -E "^ +[0-9]+ +[0-9.]+ |check|rror|M 1|kernels compiled" "$out/$1.log" >>"$S"
    if [ "$1" = t-p128 ]; then
        unset CUBLASLT_LOG_LEVEL CUBLASLT_LOG_FILE
        grep -i -m6 "matmul\|algo" "$out/lt.log" | cut -c1-1500 >>"$S"
        gzip -f "$out/lt.log"
    fi
}
W8=n=8192,k=8192,w=e4m3,a=e4m3
WK=n=2048,k=32768,w=e4m3,a=e4m3,out=float16
WK8=n=2048,k=8192,w=e4m3,a=e4m3,out=float16
bench t-p128 p128 "$W8" 1024,8192 14
bench t-never never "$W8" 1024,8192 14
bench t-p512 p512 "$W8" 1024,8192 14
bench t-never256 never256 "$W8" 1024,8192 14
bench t-p128b p128 "$W8" 1024 8
bench e-p128 e128 "$WK" 256 6
bench e-never enever "$WK" 256 6
bench e-p512 e512 "$WK" 256 6
bench e-p2048 e2048 "$WK" 256 6
bench e8-p128 e128 "$WK8" 256 6
bench e8-never enever "$WK8" 256 6
if fits 8 && command -v ncu >/dev/null; then
    timeout $((90 - $(el))) ncu --section LaunchStats -k regex:'^(?!hum)' -c 2 "$H" bench --layer "$W8" --m 8192 \
        --warmup 1 --reps 1 >"$out/ncu-lt.txt" 2>&1
    echo "ncu: exit $? at $(el) s" >>"$S"
fi
echo "end at $(el) s" >>"$S"
rm -rf "$P"
