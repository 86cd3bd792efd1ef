#!/bin/sh
# Installs what hum needs to build and test on Debian 12 (run as root), and checks for the CUDA
# toolkit, which is not a Debian package: hum expects it at /usr/local/cuda (or $CUDA_HOME).
# Safe to run again: apt is only asked for packages that are missing.
set -eu

packages="build-essential cmake pkg-config luajit libluajit-5.1-dev libyaml-dev libxxhash-dev libcjson-dev lua-cjson-dev lua-busted python3-pytest python3-numpy"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "install-deps: installing$missing"
    apt-get update
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi

cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$cuda/include/nvrtc.h" ] || ! ls "$cuda"/lib64/libnvrtc.so* "$cuda"/lib/libnvrtc.so* 2>/dev/null | grep -q .; then
    cat >&2 <<MSG
install-deps: the CUDA toolkit (NVRTC and its headers) is not at $cuda.
hum compiles its kernels at run time with NVRTC, so it needs the toolkit to build (a GPU is
not needed). Install it from NVIDIA's Debian 12 repository, as root:
    wget https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/cuda-keyring_1.1-1_all.deb
    dpkg -i cuda-keyring_1.1-1_all.deb && apt-get update && apt-get install -y cuda-toolkit-13-0
(12.x toolkits work too), or set CUDA_HOME to where a toolkit is; then run this again.
MSG
    exit 1
fi
echo "install-deps: all dependencies present (CUDA toolkit: $cuda)"
