#!/usr/bin/env bash
# The README's main job: compile the UNet-2D example (input 1x4x1024x1024, H
# split 300/300/212/212 over 4 ranks), run it on the CPU backend with
# in-process ranks, check it against the unpartitioned model, and print the
# error, the time and the memory per rank.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SHARDC_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model="$root/examples/unet2d.mlir"

echo "== shardc: UNet-2D for 4 ranks (uneven 300/300/212/212)"
if "$build/bin/shardc" "$model" -o "$work/unet2d.shardbin" --timing 2>"$work/err"; then
  ranks=4
else
  # Until sc-partition lands, shardc says so with the annotation's location;
  # the same model then runs unpartitioned on one rank.
  sed 's/^/  /' "$work/err" | head -3
  echo
  echo "== shardc --unpartitioned: the same model on 1 rank"
  "$build/bin/shardc" "$model" --unpartitioned -o "$work/unet2d.shardbin" --timing
  ranks=1
fi

echo
if [ "$ranks" -gt 1 ]; then
  echo "== shard-run --check --bench 3 ($ranks ranks, in-process)"
  "$build/bin/shard-run" "$work/unet2d.shardbin" --ranks "$ranks" \
    --random-inputs --seed 1 --check --atol 1e-4 --rtol 1e-4 --bench 3
else
  # A one-rank artifact is the unpartitioned model itself: there is nothing
  # independent to --check it against yet.
  echo "== shard-run --bench 3 (1 rank; --check needs the 4-rank program)"
  "$build/bin/shard-run" "$work/unet2d.shardbin" --random-inputs --seed 1 \
    --bench 3
fi
