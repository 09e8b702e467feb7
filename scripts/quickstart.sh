#!/usr/bin/env bash
# The README's main job: compile the UNet-2D example (input 1x4x1024x1024, H
# split 300/300/212/212 over 4 ranks), run it on the CPU backend with
# in-process ranks, check it against the unpartitioned model, and print the
# error, the time and the memory (arena and workspace) per rank.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SHARDC_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model="$root/examples/unet2d.mlir"

echo "== shardc: UNet-2D for 4 ranks (uneven 300/300/212/212)"
"$build/bin/shardc" "$model" -o "$work/unet2d.shardbin" --timing
"$build/bin/shardc" "$model" --emit=plan | grep -E "^rank class|instructions|arena"

echo
echo "== shard-run --check --bench 3 (4 ranks, in-process)"
"$build/bin/shard-run" "$work/unet2d.shardbin" --ranks 4 \
  --random-inputs --seed 1 --check --atol 1e-4 --rtol 1e-4 --bench 3
