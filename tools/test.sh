#!/bin/sh
# Builds hum and runs the whole test suite, as CI does (.ci/run), on a machine with or
# without a GPU (GPU tests report "skipped" without one):
#   1. $HUM_BUILD_DIR (default build/): busted specs + every ctest (C unit tests, examples
#      built against a staging install, GPU tests);
#   2. $HUM_SANITIZE_DIR (default build-sanitize/): the C tests again under AddressSanitizer
#      and UndefinedBehaviorSanitizer (-DHUM_SANITIZE=ON);
#   3. $HUM_TSAN_DIR (default build-tsan/): the tests that run threads against one runtime or
#      cache (concurrent reloads and policy probes, concurrent compiles) under ThreadSanitizer.
# HUM_JOBS caps parallel build and test jobs (default: all cores).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${HUM_BUILD_DIR:-$src/build}
sanitize=${HUM_SANITIZE_DIR:-$src/build-sanitize}
tsan=${HUM_TSAN_DIR:-$src/build-tsan}
jobs=${HUM_JOBS:-$(nproc)}

HUM_BUILD_DIR=$build "$src/tools/build.sh"
(cd "$build" && ctest --output-on-failure -j "$jobs")

HUM_BUILD_DIR=$sanitize "$src/tools/build.sh" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHUM_SANITIZE=ON
ASAN_OPTIONS=detect_leaks=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
LSAN_OPTIONS=suppressions=$src/tools/lsan.supp \
    sh -c "cd '$sanitize' && ctest --output-on-failure -j '$jobs'"

HUM_BUILD_DIR=$tsan HUM_TARGETS="test_test_policy_sandbox test_test_runtime test_jit_cache_concurrent" \
    "$src/tools/build.sh" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHUM_TSAN=ON
TSAN_OPTIONS=halt_on_error=1 \
    sh -c "cd '$tsan' && ctest --output-on-failure -j '$jobs' -R '^(test_policy_sandbox|test_runtime|jit_cache_concurrent)\$'"
echo "test: all suites passed"
