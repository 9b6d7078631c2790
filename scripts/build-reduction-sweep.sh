#!/usr/bin/env bash
# Builds test/gpu/Inputs/reduction_scalar.mlir with its two-stage
# reduction's blocks per output (the config's third tile entry, P) replaced,
# into .artifacts/redsweep/reduction_scalar_p<P>, for
# bench/experiments/reduction_scalar.py --sweep on the GPU machine. Run after
# scripts/build-gpu-artifacts.sh (which empties .artifacts/).
#   usage: scripts/build-reduction-sweep.sh [tools-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts/redsweep
rm -rf "$OUT" && mkdir -p "$OUT"
source scripts/sweep-common.sh
for p in ${BLOCKS_PER_OUTPUT:-128 256 512 1024}; do
  build_config_variant "$TOOLS" test/gpu/Inputs/reduction_scalar.mlir "$OUT" \
    "reduction_scalar_p$p" "s/tile = \[1024, 1, 256\]/tile = [1024, 1, $p]/"
  echo "[redsweep] reduction_scalar_p$p"
done
