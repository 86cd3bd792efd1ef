#!/bin/sh
# Builds hum and runs the whole test suite, as CI does (.ci/run), on a machine with or
# without a GPU (GPU tests report "skipped" without one):
#   1. $HUM_BUILD_DIR (default build/): busted specs + every ctest (C unit tests, examples
#      built against a staging install, GPU tests), then pytest of the Python binding (python/);
#   2. $HUM_SANITIZE_DIR (default build-sanitize/): the C tests again under AddressSanitizer
#      and UndefinedBehaviorSanitizer (-DHUM_SANITIZE=ON), on the kernel caches step 1 filled
#      (HUM_TEST_CACHE_ROOT: the kernels are the same; tests/CMakeLists.txt says why);
#   3. $HUM_TSAN_DIR (default build-tsan/): the tests that run threads against one runtime or
#      cache (concurrent reloads and policy probes, concurrent compiles, the hazard-slot protocol
#      that publishes reloaded dispatch tables to running forwards, the quantizer's bands of rows,
#      the compile pool's layer tables, a MoE forward's sizing beside a reload) under
#      ThreadSanitizer, with NVRTC's own (uninstrumented) threading left out (tools/tsan.supp).
# HUM_JOBS caps parallel build and test jobs (default: all cores).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${HUM_BUILD_DIR:-$src/build}
sanitize=${HUM_SANITIZE_DIR:-$src/build-sanitize}
tsan=${HUM_TSAN_DIR:-$src/build-tsan}
jobs=${HUM_JOBS:-$(nproc)}

HUM_BUILD_DIR=$build "$src/tools/build.sh"
(cd "$build" && ctest --output-on-failure -j "$jobs")

# The Python binding (python/) against this build's libhum; its GPU tests skip without a GPU.
python=${HUM_PYTHON:-}
if [ -z "$python" ]; then
    for candidate in python3 /usr/bin/python3; do
        if "$candidate" -c "import pytest, numpy" 2>/dev/null; then python=$candidate; break; fi
    done
fi
if [ -z "$python" ]; then
    echo "test: no python3 with pytest and numpy (tools/install-deps.sh installs them; or set HUM_PYTHON)" >&2
    exit 1
fi
HUM_LIBRARY=$build/runtime/libhum.so HUM_CACHE_DIR=$build/tests/cache-python \
    "$python" -m pytest -q -p no:cacheprovider "$src/python/tests"

HUM_BUILD_DIR=$sanitize "$src/tools/build.sh" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHUM_SANITIZE=ON \
    -DHUM_TEST_CACHE_ROOT="$build/tests"
ASAN_OPTIONS=detect_leaks=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
LSAN_OPTIONS=suppressions=$src/tools/lsan.supp \
    sh -c "cd '$sanitize' && ctest --output-on-failure -j '$jobs'"

HUM_BUILD_DIR=$tsan HUM_TARGETS="test_test_policy_sandbox test_test_runtime test_jit_cache_concurrent test_test_hazard_reload test_test_quantize test_test_layer test_jit_compile_many test_test_moe_workspace" \
    "$src/tools/build.sh" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHUM_TSAN=ON
TSAN_OPTIONS="halt_on_error=1 suppressions=$src/tools/tsan.supp" \
    sh -c "cd '$tsan' && ctest --output-on-failure -j '$jobs' -R '^(test_policy_sandbox|test_runtime|jit_cache_concurrent|test_hazard_reload|test_quantize|test_layer|jit_compile_many|test_moe_workspace)\$'"
echo "test: all suites passed"
