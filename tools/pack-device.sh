#!/bin/sh
# Packs a Release build for the device machine (../.library/device: 64 MiB carry limit) into
# OUT.tgz: libhum, the hum CLI, ctest's files, the test binaries labelled `gpu` and hum-commit.txt
# (the checkout's commit when packed: pack right after building); object files,
# static archives, CMake's own files, kernel caches (the gpu tests' go in an archive of their own:
# tools/label-cache/build.sh) and CPU-only tests stay behind. ctest records absolute paths: extract it where it was built, e.g.
#   ln -sfn "$PWD" /work/main; tar xzf build.tgz -C /work/main
#   tools/pack-device.sh [BUILD_DIR] [OUT.tgz]
set -eu
build=${1:-build}
out=${2:-.exp/build.tgz}
mkdir -p "$(dirname "$out")"
gpu=$(cd "$build" && ctest -L gpu -N | awk '/Test +#/ {print $3}')
skip=$(mktemp)
for t in "$build"/tests/test_*; do
    n=${t##*/test_}
    # a sharded test's ctest names are NAME_0 .. NAME_{n-1} (tests/CMakeLists.txt)
    echo "$gpu" | grep -qx -e "$n" -e "${n}_[0-9]*" || echo "${t#"$build"/}" >>"$skip"
done
# the commit of the checkout the build folder sits in, for hum bench's JSON there (HUM_COMMIT,
# bench/README.md; the device's copy of the checkout may carry an older .git); "-dirty" when it
# had changes or untracked files
if commit=$(git -C "$build" rev-parse --short=12 HEAD 2>/dev/null); then
    [ -z "$(git -C "$build" status --porcelain 2>/dev/null)" ] || commit=$commit-dirty
    echo "$commit" >"$build/hum-commit.txt"
else
    rm -f "$build/hum-commit.txt"
fi
tar czf "$out" -C "$build" --exclude CMakeFiles --exclude '*.o' --exclude '*.a' \
    --exclude 'cache-*' -X "$skip" .
rm -f "$skip"
du -h "$out"
