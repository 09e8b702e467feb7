#!/usr/bin/env bash
# Run on the GPU machine (the device tool), from the repository root, with
# .gpu/ carried (made here by prepare.sh):
#
#   bash scripts/gpu-session/run.sh [build] [tests] [acceptance] [bench]
#
# (default: all four, in that order). Builds the runtime and shard-run
# without MLIR (scripts/gpu-session/CMakeLists.txt) against the machine's
# CUDA and the cuDNN and NCCL that PyTorch's wheels bring; runs the
# runtime's GPU tests (`ctest -L gpu`: CudaBackendTest, NCCL with one rank)
# with SHARDRT_REQUIRE_GPU=1; every acceptance case in local multi-rank mode
# on the GPU from its precompiled artifact; and bench/gpu_unet.py. Logs go
# under $OUT (the device tool brings them back) and a summary to stdout.
# SHARDC_GPU_DRY_RUN=1 checks the kit on a machine without a GPU: GPU tests
# skip and the benchmark runs on the CPU at 64x64. Exits 1 if any step
# failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpu-out}
KIT=${KIT:-.gpu}
BUILD=${SHARDC_GPU_BUILD:-/tmp/shardc-rt}
DRY=${SHARDC_GPU_DRY_RUN:-0}
mkdir -p "$OUT"
status=0
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build tests acceptance bench)
want() { for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
stamp() { echo "[$(date +%H:%M:%S)] $*"; }
[ -d "$KIT/cases" ] || { echo "no $KIT/cases: run prepare.sh here and carry $KIT"; exit 1; }

# cuDNN and NCCL from the Python wheels (nvidia-cudnn-cu13,
# nvidia-nccl-cu13), where they are; else CMake searches the system.
find_in_wheels() { # file name pattern
  python3 - "$1" <<'PY' 2>/dev/null
import glob, os, sys
try:
    import nvidia
except ImportError:
    sys.exit(0)
for root in list(nvidia.__path__):
    hits = sorted(glob.glob(os.path.join(root, "**", sys.argv[1]), recursive=True))
    if hits:
        print(hits[0])
        break
PY
}
cmake_args=()
libdirs=()
# cuDNN's wheels load the cuBLAS(Lt) and NVRTC of their own CUDA major,
# which come as wheels beside them: their directories go on the path too.
for lib in cublasLt nvrtc cudart; do
  so=$(find_in_wheels "lib$lib.so*")
  [ -n "$so" ] && libdirs+=("$(dirname "$so")")
done
for lib in nccl cudnn; do
  header=$(find_in_wheels "$lib.h")
  so=$(find_in_wheels "lib$lib.so*")
  if [ -n "$header" ] && [ -n "$so" ]; then
    up=$(echo "$lib" | tr a-z A-Z)
    cmake_args+=("-DSHARDRT_${up}_INCLUDE_DIR=$(dirname "$header")"
                 "-DSHARDRT_${up}_LIBRARY=$so")
    libdirs+=("$(dirname "$so")")
  fi
done
for d in ${libdirs[@]+"${libdirs[@]}"}; do export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; done
REQUIRE=1
[ "$DRY" = 1 ] && REQUIRE=0
kit_loads=1

# The kit's kernels need a driver of at least the CUDA release that
# compiled them; an older one refuses every fused kernel at session
# creation. Said once, up front, instead of in every failed case.
if [ -f "$KIT/nvcc-release" ] && command -v nvidia-smi >/dev/null; then
  built=$(cat "$KIT/nvcc-release")
  driver=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9]*\.[0-9]*\).*/\1/p' | head -1)
  stamp "kit kernels from CUDA $built; driver supports CUDA ${driver:-unknown}"
  if [ -n "$driver" ] && [ "${driver%%.*}" -lt "${built%%.*}" ]; then
    echo "the driver (CUDA $driver) is older than the kit's nvcc (CUDA $built):" \
      "the precompiled artifacts will not load; run prepare.sh with an nvcc" \
      "of CUDA ${driver%%.*} (CUDACXX=...) and carry .gpu again;" \
      "the GPU tests (built here) still run"
    kit_loads=0
    status=1
  fi
fi
export SHARDRT_REQUIRE_GPU=$REQUIRE

if want build || [ ! -x "$BUILD/bin/shard-run" ]; then
  stamp "build (log: $OUT/build.log)"
  {
    nvidia-smi || true
    echo "wheels: ${cmake_args[*]-none}"
    if [ ! -d /tmp/gtest ]; then
      cmake -S "$KIT/googletest" -B /tmp/gtest-build -G Ninja \
        -DCMAKE_INSTALL_PREFIX=/tmp/gtest -DBUILD_GMOCK=OFF &&
        cmake --build /tmp/gtest-build && cmake --install /tmp/gtest-build
    fi
    cmake -S scripts/gpu-session -B "$BUILD" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=/tmp/gtest \
      -DCMAKE_CUDA_ARCHITECTURES="${SHARDC_GPU_ARCH:-90}" \
      ${cmake_args[@]+"${cmake_args[@]}"} &&
      ninja -C "$BUILD"
  } >"$OUT/build.log" 2>&1
  rc=$?
  grep -E "shardrt:|CUDA|cuDNN|NCCL|MPI" "$OUT/build.log" | grep -v "^--.*Looking" | head -20
  stamp "build rc=$rc"
  [ $rc -eq 0 ] || exit 1
fi

if want tests; then
  stamp "ctest -L gpu (log: $OUT/ctest-gpu.log)"
  (cd "$BUILD" && ctest -L gpu --output-on-failure --timeout 600) \
    >"$OUT/ctest-gpu.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  stamp "ctest rc=$rc: $(grep -E 'tests passed|failed out of' "$OUT/ctest-gpu.log")"
  grep -E "Failed|\*\*\*|Not Run|Skipped" "$OUT/ctest-gpu.log" | head -20
fi

if want acceptance && [ $kit_loads = 0 ]; then
  stamp "acceptance skipped: the kit's kernels need a newer driver"
elif want acceptance; then
  # The big cases (UNet-2D 1024^2, ConvNet-3D 96^3, with their CPU
  # reference runs) last, so that a run cut short still reports the rest.
  stamp "acceptance on the GPU, local multi-rank mode (log: $OUT/acceptance.log)"
  passed=0 failed=0 skipped=0
  : >"$OUT/acceptance.log"
  while read -r name _ world atol rtol _; do
    for art in "$KIT/cases/$name".*shardbin; do
      t0=$(date +%s%N)
      python3 test/acceptance/run_case.py --bin-dir "$BUILD/bin" \
        --case "test/acceptance/cases/$name.mlir" --world "$world" \
        --atol "$atol" --rtol "$rtol" --mode partitioned \
        --workdir /tmp/shardc-acceptance --backend cuda --artifact "$art" \
        >>"$OUT/acceptance.log" 2>&1 </dev/null
      rc=$?
      ms=$((($(date +%s%N) - t0) / 1000000))
      case $rc in
      0) result=PASS; passed=$((passed + 1)) ;;
      3) result=SKIP; skipped=$((skipped + 1)) ;;
      *) result=FAIL; failed=$((failed + 1)) ;;
      esac
      echo "$result $(basename "$art" .shardbin) ${ms} ms" |
        tee -a "$OUT/acceptance.log"
    done
  done < <(grep -v '^#' "$KIT/cases/MANIFEST.txt" | sort -s -k6,6r)
  [ $failed -eq 0 ] || status=1
  stamp "acceptance: $passed passed, $failed failed, $skipped skipped"
fi

if want bench && [ $kit_loads = 0 ]; then
  stamp "bench skipped: the kit's kernels need a newer driver"
elif want bench; then
  stamp "bench/gpu_unet.py (table: $OUT/bench.md)"
  if [ "$DRY" = 1 ]; then
    flags=(--device cpu --sizes 64 --runs 2)
  else
    flags=(--sizes "${SHARDC_GPU_SIZES:-1024,2048}")
  fi
  PYTHONUNBUFFERED=1 python3 bench/gpu_unet.py --build "$BUILD" \
    --artifacts "$KIT/bench" "${flags[@]}" >"$OUT/bench.md" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  stamp "bench rc=$rc"
  head -12 "$OUT/bench.md"
fi
exit $status
