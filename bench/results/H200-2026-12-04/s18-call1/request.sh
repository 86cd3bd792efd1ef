# timeout: 585
# Session 18, call 1: the gpu label on main 8b04c31 as it stands, then bench/sweeps/next-whole-tiles.sh
t0=$(date +%s)
OUT=$R/show ROWS=none HUMMING= BUDGET=300 bash bench/sweeps/show.sh build
echo "label done at $(($(date +%s) - t0)) s"
sed '1s/.*/# (run from c1)/' bench/sweeps/next-whole-tiles.sh > /tmp/nwt.sh
timeout $((575 - ($(date +%s) - t0))) bash /tmp/nwt.sh
echo "sweep exit $? at $(($(date +%s) - t0)) s"
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror" $R/sweep.txt > $R/summary.txt
