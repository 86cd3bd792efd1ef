# timeout: 300
# Session 21, call 3 (main 5189c76): what-if probes of W4A8 MXFP4 (and W8A8) under ncu (clock locked,
# kernel time only; results wrong): nodec (e2m1 codes masked into e4m3 registers, no byte tables),
# nopro (never promoted: site policy), nofull (the math warps never wait for a stage's copies).
set -u
H=build/runtime/hum
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/c3pol
pol nopro "t.promote_k = layer.padded_k"
W4L=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8L=n=8192,k=8192,w=e4m3,a=e4m3
M=gpu__time_duration.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed
q() { # VARIANT NAME hum-bench-args...
  local v=$1 name=$2; shift 2
  local kp="" cfg=""; case $v in main) ;; nopro) cfg="--config /tmp/c3pol/nopro.yaml" ;; *) kp=$PWD/.exp/kernels-$v ;; esac
  HUM_KERNEL_PATH=$kp HUM_CACHE_DIR=/tmp/c3-$v timeout 45 ncu --metrics $M -k regex:hum_gemm -c 1 --page raw "$H" bench $cfg "$@" --warmup 0 --reps 1 >$R/$name-$v.txt 2>&1
  echo "$name $v exit $? at $(($(date +%s) - t0)) s: $(grep -E 'gpu__time_duration.sum|gmma_cycles_active.avg' $R/$name-$v.txt | awk '{print $NF}' | tr '\n' ' ')" >>$R/calls.txt
}
for v in main nodec nopro nofull; do
  q $v w4a8-128 --layer $W4L --m 128
  q $v w4a8-256 --layer $W4L --m 256
  q $v w4a8-1024 --layer $W4L --m 1024
done
for v in main nopro nofull; do
  q $v w8a8-1024 --layer $W8L --m 1024
done
