#!/bin/sh
# Installs a build into a staging prefix and builds examples/ against it the ways a user would:
# the CMake package (hum::hum shared, hum::hum_static), and pkg-config; then runs each host and
# the installed CLI. Used by the ctest `examples_install`.
#   tools/check-examples.sh BUILD_DIR WORK_DIR
set -eu
build=$1
work=$2
src=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
test -f "$prefix/include/hum/hum.h"
test -f "$prefix/include/hum/hum_tools.h"
cmake -S "$src/examples" -B "$work/cmake-build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    > "$work/configure.log"
cmake --build "$work/cmake-build" > "$work/build.log"
"$work/cmake-build/minimal_host"
"$work/cmake-build/minimal_host_static" "$src/examples/deploy.yaml"

libdir=$(dirname "$(find "$prefix" -name hum.pc)")
PKG_CONFIG_PATH=$libdir
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
cc -std=c11 -o "$work/pkg-config-host" "$src/examples/minimal_host.c" $(pkg-config --cflags --libs hum) \
    -Wl,-rpath,"$(pkg-config --variable=libdir hum)"
"$work/pkg-config-host"
# The tools header stands alone on an installed tree (it names no private header).
printf '#include <hum/hum_tools.h>\nint main(void) { return hum_dtype_bits(HUM_DTYPE_UINT4) == 4 ? 0 : 1; }\n' \
    > "$work/tools-host.c"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -o "$work/tools-host" "$work/tools-host.c" $(pkg-config --cflags --libs hum) \
    -Wl,-rpath,"$(pkg-config --variable=libdir hum)"
"$work/tools-host"

"$prefix/bin/hum" info
echo "examples built and run against $prefix"
