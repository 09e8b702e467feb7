#!/usr/bin/env bash
# The README's main job. At this stage of the project it compiles (parses and
# verifies) the example models and reports what partitioning will add; it does
# not run them: the partitioner and the CPU runtime are the next milestones.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SHARDC_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

opt="$build/bin/shardc-opt"
for model in "$root"/examples/*.mlir; do
  echo "== $(basename "$model")"
  start=$EPOCHREALTIME
  "$opt" "$model" --sc-model-summary -o /dev/null
  awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "  parsed and verified in %.3f s\n", e - s }'
done
cat <<'MSG'

Not run yet: sharded execution on the CPU backend (shard-run --check, time and
per-rank memory) arrives with the runtime and partitioner milestones; the halo
widths above are what the partitioner will exchange.
MSG
