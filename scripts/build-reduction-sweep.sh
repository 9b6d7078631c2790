#!/usr/bin/env bash
# Builds test/gpu/Inputs/reduction_scalar.mlir with its two-stage
# reduction's blocks per output (the config's third tile entry, P) replaced,
# into .artifacts/redsweep/reduction_scalar_p<P>, for
# bench/reduction_scalar.py --sweep on the GPU machine. Run after
# scripts/build-gpu-artifacts.sh (which empties .artifacts/).
#   usage: scripts/build-reduction-sweep.sh [tools-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts/redsweep
rm -rf "$OUT" && mkdir -p "$OUT"
for p in ${BLOCKS_PER_OUTPUT:-128 256 512 1024}; do
  stem=reduction_scalar_p$p
  "$TOOLS/fuser-opt" test/gpu/Inputs/reduction_scalar.mlir --fuser-fusion-pipeline |
    sed "s/tile = \[1024, 1, 256\]/tile = [1024, 1, $p]/" |
    "$TOOLS/fuser-opt" --fuser-gpu-pipeline -o "$OUT/$stem.gpu.mlir"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-ptx -o "$OUT/$stem.ptx"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-manifest -o "$OUT/$stem.manifest.json"
  rm "$OUT/$stem.gpu.mlir"
  echo "[redsweep] $stem"
done
