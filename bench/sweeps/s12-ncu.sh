# timeout: 200
# Session 12, lead: ncu of the cells still behind Humming, for the next session (no code change):
# the Qwen3 MoE down and gate_up GEMMs at M = 4096 (256 rows per expert, 144 x 256 x 64 / 4
# wgmma_ws whole), W4A8 MXFP4 n = k = 8192 at M = 1024. One launch each (the check's), full set.
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/prof-cache
p() { # NAME hum-bench-args...
  local name=$1; shift
  timeout 70 ncu --set full -k regex:hum_gemm -c 1 -o $R/$name "$H" bench "$@" --warmup 0 --reps 1 >$R/$name.log 2>&1
  echo "$name exit $?" >>$R/calls.txt
  ncu -i $R/$name.ncu-rep --page details --print-units base >$R/$name.txt 2>&1
  ncu -i $R/$name.ncu-rep --page raw --csv >$R/$name-raw.csv 2>&1
}
p moe-down-4096 --moe-gemm n=2048,k=768,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8 --down --m 4096
p moe-gateup-4096 --moe-gemm n=1536,k=2048,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8 --m 4096
p w4a8mx-1024 --layer n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 --m 1024
rm -f $R/*.ncu-rep
