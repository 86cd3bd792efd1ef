# timeout: 215
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
. bench/sweeps/site-policy.sh /tmp/cand
BIG='e.m_min > 384'
pol own "if $BIG and t.c_tile == 'stage' then t.c_tile = 'own'; if t.stages == 5 then t.stages = 3 end end"
pol mc "if $BIG then t.multicast_a = true end"
for c in own mc; do build/runtime/hum info --config /tmp/cand/$c.yaml --arch sm_90a --layer n=8192,k=8192,w=uint8 2>&1 | grep "M 385" >> $R/tables.txt; done
HUM_CACHE_DIR=/tmp/sbs-cache timeout 200 python3 bench/sweeps/side-by-side.py --out $R/sbs.json --rounds 2 --floor '' \
  --only w8ch,w4g128 --m 2048,8192 --hum own=/tmp/cand/own.yaml --hum mc=/tmp/cand/mc.yaml > $R/sbs.txt 2>&1
echo "sbs exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
