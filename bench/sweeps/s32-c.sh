# timeout: 575
# Session 32's third request, for bench/sweeps/run-call.sh, on 8201d21 (kBatch; its gpu label passed
# 34 / 34 in s32-b): issues 8 and 9's rows beside Humming 0.1.20 and cuBLAS in one call
# (bench/sweeps/show.sh without its label, the rows of the open issues only), then, with the time
# left, candidates for the next session on W8A8 n = k = 8192: promoted every 256 of K above M = 1024
# (p256: the 192-row tiles drain and promote every other stage) and at M 385..1024 (p256m: no stage
# sets, batched stages promoted every other one), and weights_ss at M 257..384 (ss384) beside the
# built-in in the same run's order.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s32-c.sh | sed "s/# timeout: //") - 10 ))
OUT=$R/show LABEL=0 BUDGET=455 HUMMING="dense quant llama" \
  ROWS="w4g128fp16 w8a8 llama-n4096k4096 llama-n14336k4096 llama-n4096k14336 w4a8mx fp8blk7168 fp8blk8192 w2ch w4g128bf16 w4g128zp w8ch" \
  bash bench/sweeps/show.sh build > $R/show.log 2>&1
echo "show done at $(($(date +%s) - t0)) s" >> $R/calls.txt
. bench/sweeps/site-policy.sh /tmp/cand
pol p256 "if e.m_min > 1024 then t.promote_k = 256 end"
pol p256m "if e.m_min > 384 then t.promote_k = 256 end"
pol ss384 "if e.m_max == 384 then t.weights_ss = true end"
X=n=8192,k=8192,w=e4m3,a=e4m3
cand() { # NAME CONFIG M: one run into cand.txt when the time left holds it
  [ $((B - ($(date +%s) - t0))) -gt 25 ] || { echo "== $1 skipped (time)" >> $R/cand.txt; return; }
  echo "== $1" >> $R/cand.txt
  HUM_CACHE_DIR=/tmp/c-$1 timeout 20 build/runtime/hum bench --config $2 --layer $X --m $3 --warmup 10 --reps 50 2>&1 \
    | grep -E '^ +[0-9]+ |check' >> $R/cand.txt
}
cand base /tmp/cand/base.yaml 320,384,1024,2048,8192
cand p256 /tmp/cand/p256.yaml 2048,8192
cand p256m /tmp/cand/p256m.yaml 1024
cand ss384 /tmp/cand/ss384.yaml 320,384
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
