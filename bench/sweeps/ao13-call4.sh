# timeout: 130
# Session 12, ao13 (issue 7): act-order layers above M = 384 on whole 256-row tiles (this tree's
# built-in policy) against main's stream-K there (main's sm90.lua as a site file, same binary),
# and the plain layer, interleaved in two rounds; n = k = 8192 uint4 g128 fp16. Each M is checked
# against float64 before it is timed.
set -u
H=build/runtime/hum
L=n=8192,k=8192,w=uint4,a=float16,group=128
MAIN=$PWD/req/main-policy
mkdir -p $MAIN && cp req/main-sm90.lua $MAIN/sm90.lua # `git show cf5294a:policies/sm90.lua`, untracked
MS=256,512,1024,2048,4096,8192
b() { # NAME POLICY_DIR|- hum-bench-args...
  local name=$1 pol=$2; shift 2
  local e=(-u HUM_POLICY_PATH); [ "$pol" = - ] || e=(HUM_POLICY_PATH=$pol)
  echo "=== $name $pol $*" >>$R/ao.txt
  timeout 25 env "${e[@]}" $H bench --warmup 10 --reps 50 --m $MS "$@" >>$R/ao.txt 2>&1
  echo "exit $?" >>$R/ao.txt
}
for round in 1 2; do
  if [ $round = 1 ]; then order="new main plain"; else order="plain main new"; fi
  for v in $order; do
    case $v in
      new) b ao-whole - --layer $L,actorder=1 ;;
      main) b ao-main $MAIN --layer $L,actorder=1 ;;
      plain) b plain - --layer $L ;;
    esac
  done
done
