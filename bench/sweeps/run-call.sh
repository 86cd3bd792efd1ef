#!/bin/bash
# The device tool's command for one call: OUT=$OUT bash .exp/run-call.sh CALL runs the request
# .exp/CALL.sh (first line "# timeout: SECONDS"; it writes under $R) on the device machine, from a
# copy of this file in .exp/ (ignored, carried with .gpu-libs, .whl and tools-shared). Here first:
# tools/pack-device.sh build .exp/build.tgz (extracted into build/ there, under the path it was
# built at), the Humming wheel in .whl (tools-shared/bench-humming.py's header). At most 8 files
# come back from $OUT: everything lands in one archive, $OUT/CALL.tgz.
export LD_LIBRARY_PATH=$PWD/.gpu-libs/lib:${LD_LIBRARY_PATH:-}
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1 && export PYTHONPATH=/tmp/site
[ "$PWD" = /work/main ] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
mkdir -p build && tar xzf .exp/build.tgz -C build
# the label's kernels compiled without a GPU (tools/label-cache/build.sh), where the request carries them
# and the toolkit's headers at the path their cache keys name
if [ -f .exp/label-cache.txz ]; then
  python3 -c "import tarfile; tarfile.open('.exp/label-cache.txz').extractall('build')"
  CUDA_HOME=$(sh tools/label-cache/cuda-home.sh) && export CUDA_HOME
fi
export R=$OUT/$1; mkdir -p "$R"
cp .exp/$1.sh "$R/request.sh"
to=$(head -1 .exp/$1.sh | sed 's/# timeout: //')
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$R/gpu.txt" 2>&1
# the commit of the build (tools/pack-device.sh), not of this copy's .git, which may be older
[ -f build/hum-commit.txt ] && export HUM_COMMIT=$(cat build/hum-commit.txt)
echo "build of ${HUM_COMMIT:-an unrecorded commit}" >> "$R/gpu.txt"
timeout "$to" bash .exp/$1.sh > "$R/stdout.txt" 2>&1
echo "request exit $?" >> "$R/stdout.txt"
tail -20 "$R/stdout.txt"
# at most 8 files come back: everything in one archive (ncu reports kept when small)
tar czf "$OUT/$1.tgz" -C "$OUT" "$1" && rm -rf "$R"
ls -la "$OUT"
