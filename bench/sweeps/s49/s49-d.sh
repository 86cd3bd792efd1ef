# timeout: 150
# For a next call (bench/sweeps/run-call.sh; session 49 had too little device time left to start
# it), on main's final code (build e1748b9 or later with the same kernels). W8A8 at
# M = 8192 read 958-998 us in hum bench runs over M 1024, 2048, 8192 (warmup 20, reps 100) and
# 871-880 in runs of M 8192 alone (warmup 10, reps 50), while cuBLASLt fp8 read 839-867 in both
# (s49-a, s49-b; s48-a shows the same two clusters). Which of the two differences moves hum:
# the Ms before it in the process, or the protocol? Two rounds of four runs, order rotating.
set -u
t0=$(date +%s)
export HUM_CACHE_DIR=/tmp/cache
run() { # TAG M WARMUP REPS
  echo "=== $1 --m $2 --warmup $3 --reps $4" >> $R/w8a8.txt
  timeout 40 build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m $2 --warmup $3 --reps $4 \
    --out $R/$1.json --force >> $R/w8a8.txt 2>&1
  echo "$1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
for r in 1 2; do
  run alone-short-r$r 8192 10 50
  run three-long-r$r 1024,2048,8192 20 100
  run alone-long-r$r 8192 20 100
  run three-short-r$r 1024,2048,8192 10 50
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
