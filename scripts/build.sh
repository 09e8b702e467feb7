#!/usr/bin/env bash
# Configures and builds shardc into ${SHARDC_BUILD_DIR:-build}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SHARDC_BUILD_DIR:-$root/build}
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    ${SHARDC_CMAKE_ARGS:-}
fi
cmake --build "$build" -j "${SHARDC_JOBS:-$(nproc)}"
