# timeout: 330
# Session 17 call 2 (main 5016260): what bounds M = 1 on the GEMM alone. ncu --set full (clock unlocked, L2
# flushed by ncu) of the GEMM kernel of W8A8 e4m3 (mma.sync 16 x 128 x 256 / 4), W4A8 MXFP4 (wgmma_ws
# 8 x 128 x 256 / 6) and uint4 g128 fp16 at M = 1, n = k = 8192; the quantizer's own launch beside.
set -u
H=build/runtime/hum
t0=$(date +%s)
export HUM_CACHE_DIR=/tmp/prof-cache
prof() { # NAME LAYER KERNEL-REGEX
  timeout 80 ncu --set full --clock-control none --import-source no -k regex:$3 -c 1 -o $R/$1 $H bench --layer $2 --m 1 --warmup 0 --reps 1 >$R/$1.log 2>&1
  echo "$1 ncu exit $? at $(($(date +%s) - t0)) s" >>$R/times.txt
  ncu -i $R/$1.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >$R/$1-sass.csv.gz
  ncu -i $R/$1.ncu-rep --page details --print-units base >$R/$1.txt 2>&1
  python3 bench/sweeps/ncu-stalls.py $R/$1-sass.csv.gz 45 > $R/$1-stalls.txt 2>&1
  rm -f $R/$1.ncu-rep $R/$1-sass.csv.gz
}
prof w8a8-m1 n=8192,k=8192,w=e4m3,a=e4m3 hum_gemm
prof w4a8-m1 n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 hum_gemm
prof u4-m1 n=8192,k=8192,w=uint4,a=float16,group=128 hum_gemm
prof quant-m1 n=8192,k=8192,w=e4m3,a=e4m3 quantize
