# timeout: 480
# Session 16 call 1 (main 329ab05): the gpu label on main as it stands; ncu (full set, source-level stall
# samples) of W4A8 MXFP4 and W8A8 e4m3 at n = k = 8192, M = 1024
set -u
H=build/runtime/hum
t0=$(date +%s)
[ "${LABEL:-1}" = 0 ] || OUT=$R/show ROWS=none HUMMING= BUDGET=300 bash bench/sweeps/show.sh build > $R/show.txt 2>&1
echo "label done at $(($(date +%s) - t0)) s" >> $R/calls.txt
export HUM_CACHE_DIR=/tmp/prof-cache
p() { # NAME hum-bench-args...
  local name=$1; shift
  timeout 90 ncu --set full --import-source no -k regex:hum_gemm -c 1 -o $R/$name "$H" bench "$@" --warmup 0 --reps 1 >$R/$name.log 2>&1
  echo "$name exit $? at $(($(date +%s) - t0)) s" >>$R/calls.txt
  ncu -i $R/$name.ncu-rep --page source --csv --print-source sass 2>$R/$name-sass.err | gzip >$R/$name-sass.csv.gz
  ncu -i $R/$name.ncu-rep --page details --print-units base >$R/$name.txt 2>&1
  ncu -i $R/$name.ncu-rep --page raw --csv 2>/dev/null | gzip >$R/$name-raw.csv.gz
}
p w4a8mx-1024 --layer n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 --m 1024
p w8a8-1024 --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024
for n in w4a8mx-1024 w8a8-1024; do python3 bench/sweeps/ncu-stalls.py $R/$n-sass.csv.gz 40 > $R/$n-stalls.txt 2>&1; done
rm -f $R/*.ncu-rep.tmp
ls -la $R >> $R/calls.txt
