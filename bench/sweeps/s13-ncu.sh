# timeout: 200
# Session 13, lead: ncu with source-level stall samples (bench/sweeps/ncu-stalls.py reads them), before the session's changes (main eed8acb)
# ncu with source-level stall samples: MoE down M = 4096, W4A8 MXFP4 M = 1024, dense uint4 g128 M = 1
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/prof-cache
p() { # NAME hum-bench-args...
  local name=$1; shift
  timeout 60 ncu --set full --import-source no -k regex:hum_gemm -c 1 -o $R/$name "$H" bench "$@" --warmup 0 --reps 1 >$R/$name.log 2>&1
  echo "$name exit $?" >>$R/calls.txt
  ncu -i $R/$name.ncu-rep --page source --csv --print-source sass >$R/$name-sass.csv 2>$R/$name-sass.err
  ncu -i $R/$name.ncu-rep --page details --print-units base >$R/$name.txt 2>&1
  gzip $R/$name-sass.csv
}
p moe-down-4096 --moe-gemm n=2048,k=768,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8 --down --m 4096
p w4a8mx-1024 --layer n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 --m 1024
p w4-m1 --layer n=8192,k=8192,w=uint4,a=float16,group=128 --m 1
p w8a8-1024 --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024
ls -la $R >> $R/calls.txt
