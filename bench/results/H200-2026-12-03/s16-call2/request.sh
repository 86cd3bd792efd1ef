# timeout: 570
# Session 16 call 2 (main 329ab05 + stage sets, uncommitted): A/B of main's hum (.exp/hum-main) against the
# tree's on the layers whose tables gain kStageSets (W8A8 e4m3 128-row tile M 65..1024, uint4 x e4m3 M >= 65),
# ncu of the new W8A8 kernel at M = 1024, then show.sh: the gpu label, rows w8a8 / w4a8mx, Humming quant
set -u
H=build/runtime/hum
t0=$(date +%s)
b() { # NAME BINARY LAYER MS
    echo "=== $1 $2 $3 $4" >>$R/ab.txt
    HUM_CACHE_DIR=/tmp/c2-$1 timeout 60 $2 bench --layer $3 --m $4 --warmup 10 --reps 50 >>$R/ab.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/ab.txt
}
W8=n=8192,k=8192,w=e4m3,a=e4m3
I4=n=8192,k=8192,w=uint4,a=e4m3,group=128
for r in 1 2; do
  b main .exp/hum-main $W8 128,512,1024
  b new $H $W8 128,512,1024
  b main .exp/hum-main $I4 128,1024
  b new $H $I4 128,1024
done
export HUM_CACHE_DIR=/tmp/prof-cache
timeout 90 ncu --set full --import-source no -k regex:hum_gemm -c 1 -o $R/w8a8-1024-new $H bench --layer $W8 --m 1024 --warmup 0 --reps 1 >$R/ncu.log 2>&1
echo "ncu exit $? at $(($(date +%s) - t0)) s" >>$R/ab.txt
ncu -i $R/w8a8-1024-new.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >$R/w8a8-1024-new-sass.csv.gz
ncu -i $R/w8a8-1024-new.ncu-rep --page details --print-units base >$R/w8a8-1024-new.txt 2>&1
python3 bench/sweeps/ncu-stalls.py $R/w8a8-1024-new-sass.csv.gz 40 > $R/w8a8-1024-new-stalls.txt 2>&1
rm -f $R/w8a8-1024-new.ncu-rep
left=$((560 - ($(date +%s) - t0)))
OUT=$R/show ROWS="w8a8 w4a8mx" HUMMING="quant" BUDGET=$left bash bench/sweeps/show.sh build > $R/show.txt 2>&1
echo "show done at $(($(date +%s) - t0)) s" >>$R/ab.txt
