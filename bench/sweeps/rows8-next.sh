#!/bin/bash
# timeout: 420
# Session 23's open questions on 8-row mma.sync warps (bench/NOTES.md, "Session 23 (lead)"), a request
# for bench/sweeps/run-call.sh (copy it to .exp/NAME.sh; it writes under $R), from a Release build of
# main packed into .exp/build.tgz:
#   c2     W8A8 e4m3 and uint1 at M <= 8 on two CTAs per SM against the built-in (one CTA), two rounds
#          (session 23's one round: W8A8 27.04 / 27.57 / 29.86 against 28.19 / 28.99 / 28.90 at M 1 / 4 / 8)
#   moe    MoE layers whose M <= 16 entries are mma.sync (the `small` tile of sm90.lua's MoE branch:
#          8-bit A, here under moe.activation = mxfp8, and 8-bit weights) on 8 rows against the
#          built-in, M 1 / 8, two rounds (a candidate only: test_expert_gemm has no 8-row pass yet)
#   ao     act-order at M <= 8: why 8 rows lost 13-18 % (ncu full set and source-level stalls of the
#          16-row built-in and of 8 rows, uint4 g128 fp16 8192 x 8192, M = 1)
set -u
H=build/runtime/hum
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/r8p
MMA8='e.m_max <= 8 and (t.kernel == nil or t.kernel == "mma")'
pol c2 "if $MMA8 then t.ctas_per_sm = 2 end"
pol ao8 "if e.m_max <= 16 and (t.kernel == nil or t.kernel == \"mma\") then t.block_m, t.warp_m = 8, 8 end"
b() { # NAME CONFIG LAYER MS
  echo "=== $1 $3" >> $R/sweep.txt
  HUM_CACHE_DIR=/tmp/r8-$1 timeout 40 $H bench --config $2 --layer $3 --m $4 --warmup 10 --reps 50 >> $R/sweep.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/sweep.txt
}
for r in 1 2; do
  for l in n=8192,k=8192,w=e4m3,a=e4m3 n=8192,k=8192,w=uint1,a=float16; do
    b base /tmp/r8p/base.yaml $l 1,2,4,8
    b c2 /tmp/r8p/c2.yaml $l 1,2,4,8
  done
done
pol moe8 "if e.m_max <= 16 and (t.kernel == nil or t.kernel == \"mma\") then t.block_m, t.warp_m = 8, 8 end"
printf 'overrides:\n  moe:\n    activation: mxfp8\n' > /tmp/r8p/mx.yaml
{ cat /tmp/r8p/moe8.yaml; cat /tmp/r8p/mx.yaml; } > /tmp/r8p/moe8-mx.yaml
for r in 1 2; do
  for c in mx moe8-mx base moe8; do
    for moe in e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128 e=128,topk=8,n=1536,k=2048,w=uint8,a=bfloat16; do
      case $c in mx|moe8-mx) [ "${moe#*w=uint4}" != "$moe" ] || continue ;; *) [ "${moe#*w=uint8}" != "$moe" ] || continue ;; esac
      echo "=== $c $moe" >> $R/sweep.txt
      HUM_CACHE_DIR=/tmp/r8-$c timeout 60 $H bench --config /tmp/r8p/$c.yaml --moe $moe --m 1,8 --warmup 10 --reps 50 \
        >> $R/sweep.txt 2>&1
      echo "exit $? at $(($(date +%s) - t0)) s" >> $R/sweep.txt
    done
  done
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
ao=n=8192,k=8192,w=uint4,a=float16,group=128,actorder=1
for c in base ao8; do
  name=ao-$c
  HUM_CACHE_DIR=/tmp/r8-prof-$c timeout 80 ncu --set full --import-source no -k regex:hum_gemm -c 1 -o $R/$name \
    $H bench --config /tmp/r8p/$c.yaml --layer $ao --m 1 --warmup 0 --reps 1 > $R/$name.log 2>&1
  echo "$name exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$name.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $R/$name-sass.csv.gz
  ncu -i $R/$name.ncu-rep --page details --print-units base > $R/$name.txt 2>&1
  python3 bench/sweeps/ncu-stalls.py $R/$name-sass.csv.gz 40 > $R/$name-stalls.txt 2>&1
  rm -f $R/$name.ncu-rep
done
