# timeout: 420
# Session 27's closing rows (bench/NOTES.md, "Session 27 (lead)"), for bench/sweeps/run-call.sh (copy it
# to .exp/NAME.sh; .exp/build.tgz of main): issue 8's and issue 9's tables through show.sh without the
# label (LABEL=0: the label ran earlier on the same kernels and tables; set LABEL=1 after a change to
# either), then Humming 0.1.20 and cuBLAS on the same rows (bench-humming.py dense, quant, llama).
set -u
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
OUT=$R LABEL=${LABEL:-0} BUDGET=${BUDGET:-400} HUMMING="dense quant llama" \
  ROWS="w4g128fp16 w8a8 w4a8mx llama-n4096k4096 llama-n14336k4096 llama-n4096k14336 w2ch w8ch w4g128bf16 w4g128zp fp8blk7168" \
  bash bench/sweeps/show.sh build
