#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every
# test (lit, unit, acceptance, mpi; gpu tests skip without a GPU) through
# ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SHARDC_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

# The generated examples must be what the generator writes today.
python3 "$root/examples/gen_models.py" --check
python3 "$root/test/acceptance/gen_cases.py" --check

# The committed op/pass reference must match what TableGen generates now.
for f in ScDialect.md ScLocalDialect.md ShardcPasses.md ShardcCompilerPasses.md; do
  if ! diff -q "$root/docs/generated/$f" "$(find "$build/docs" -name "$f" | head -1)" >/dev/null; then
    echo "docs/generated/$f is stale: copy it from $build/docs" >&2
    exit 1
  fi
done

# The runtime must also build on its own and without CUDA.
rt="$build/runtime-standalone-nocuda"
cmake -S "$root/runtime" -B "$rt" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSHARDRT_ENABLE_CUDA=OFF >/dev/null
cmake --build "$rt" -j "${SHARDC_JOBS:-$(nproc)}"
# The full runtime suite runs below through the main tree; here a smoke run
# shows the standalone build links and works.
"$rt/test/shardrt_unittests" --gtest_brief=1

ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
