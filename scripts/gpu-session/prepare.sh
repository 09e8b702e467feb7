#!/usr/bin/env bash
# Run here, before a GPU session (a machine with shardc, no GPU needed):
# packs into .gpu/ (git-ignored; the device tool's `carry`) what the GPU
# machine cannot make itself, since it has CUDA, cuDNN, NCCL and PyTorch
# but no LLVM/MLIR and no GoogleTest:
#   .gpu/cases/   every partitioned acceptance case compiled --target=cuda
#                 (the ring cases also --unroll-rings), with MANIFEST.txt;
#   .gpu/bench/   bench/gpu_unet.py's UNet, --unpartitioned --target=cuda,
#                 at each size in $SIZES (default 64,1024,2048);
#   .gpu/googletest/  GoogleTest's sources, for the runtime's GPU tests.
# Then, on the GPU machine: scripts/gpu-session/run.sh (docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SIZES=${SIZES:-64,1024,2048}
KIT=.gpu
GTEST_SRC=${GTEST_SRC:-/usr/src/googletest}
[ -f "$GTEST_SRC/CMakeLists.txt" ] || {
  echo "no GoogleTest sources at $GTEST_SRC (set GTEST_SRC)" >&2
  exit 1
}
ninja -C "$BUILD" shardc >/dev/null
SHARDC="$BUILD/bin/shardc"
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu/' "$exclude" 2>/dev/null || echo '/.gpu/' >>"$exclude"
rm -rf "$KIT" && mkdir -p "$KIT/cases" "$KIT/bench"

cases=test/acceptance/cases
cp "$cases/MANIFEST.txt" "$KIT/cases/"
grep -v '^#' "$cases/MANIFEST.txt" | while read -r name _; do
  "$SHARDC" "$cases/$name.mlir" --target=cuda -o "$KIT/cases/$name.shardbin"
  case "$name" in
  *sdpa_ring*)
    "$SHARDC" "$cases/$name.mlir" --target=cuda --unroll-rings \
      -o "$KIT/cases/$name.ring-unrolled.shardbin" ;;
  esac
done

for size in ${SIZES//,/ }; do
  python3 -c "import sys; sys.path.insert(0, 'bench'); import gpu_unet; \
sys.stdout.write(gpu_unet.model_text($size))" >"$KIT/bench/unet$size.mlir"
  "$SHARDC" "$KIT/bench/unet$size.mlir" --unpartitioned --target=cuda \
    -o "$KIT/bench/unet$size.shardbin"
done

cp -r "$GTEST_SRC" "$KIT/googletest"
# The CUDA release the artifacts' kernels were compiled with: a driver
# older than it cannot load them (run.sh checks before it starts).
nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p' >"$KIT/nvcc-release"
echo "prepared $KIT: $(du -sh "$KIT" | cut -f1)" \
  "($(ls "$KIT"/cases/*.shardbin | wc -l) case artifacts," \
  "$(ls "$KIT"/bench/*.shardbin | wc -l) bench artifacts)"
