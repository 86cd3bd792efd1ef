# Sourced by a device call's request (bench/sweeps/run-call.sh runs .exp/CALL.sh; R, the results
# folder, set there): its time left and the side-by-side rows beside Humming. Before sourcing, the
# request sets CALL (its name: .exp/$CALL.sh's first line "# timeout: SECONDS" is its budget) and
# ROUNDS (rounds per row). A request that sources this must carry it: cp bench/sweeps/call-lib.sh .exp/.
t0=$(date +%s)
B=$(( $(head -1 .exp/$CALL.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
sbs() { # NAME CASES M [ARGS...]
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $2 --m $3 \
    --rounds $ROUNDS --floor '' "${@:4}" > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
