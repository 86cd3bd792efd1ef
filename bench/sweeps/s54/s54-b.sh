# timeout: 570
# Session 54's second call (prepared in session 53), on the same build as s54-c: issue 8's
# other rows beside Humming, three rounds (the other weight types at M 128 / 1024 / 8192, Llama
# shapes at M 128 / 1024), then, while time is left, the gpu label's Python side (pytest of the
# binding's GPU tests). cp bench/sweeps/s54/s54-b.sh bench/sweeps/call-lib.sh .exp/, then
# OUT=$OUT bash .exp/run-call.sh s54-b.
set -u
CALL=s54-b ROUNDS=3
. .exp/call-lib.sh
export HUM_CACHE_DIR=/tmp/cache
sbs quant w4g128bf16,w4g128zp,w8ch,w2ch 128,1024,8192
sbs llama llama-4096x4096,llama-14336x4096,llama-4096x14336 128,1024
if [ $(left) -gt 60 ]; then
  HUM_CACHE_DIR=/tmp/pycache timeout $(($(left) - 5)) python3 -m pytest -q -p no:cacheprovider -rs \
    python/tests/test_gpu.py > $R/pytest.txt 2>&1
  echo "pytest exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
