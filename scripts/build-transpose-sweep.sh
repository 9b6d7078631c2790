#!/usr/bin/env bash
# Builds test/gpu/Inputs/transpose.mlir with the pointwise_transpose configs'
# tile and block replaced, into .artifacts/transposesweep/t<TILE>_b<BLOCK>,
# for bench/transpose.py --sweep on the GPU machine. Run after
# scripts/build-gpu-artifacts.sh (which empties .artifacts/).
#   usage: scripts/build-transpose-sweep.sh [tools-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts/transposesweep
rm -rf "$OUT" && mkdir -p "$OUT"
for v in ${VARIANTS:-32:256 32:512 32:1024 64:256 64:512 64:1024}; do
  t=${v%%:*} b=${v#*:} stem=t${v%%:*}_b${v#*:}
  "$TOOLS/fuser-opt" test/gpu/Inputs/transpose.mlir --fuser-fusion-pipeline |
    sed "s/block = \[256, 1, 1\], max_grid = 1048576, tile = \[32, 32\]/block = [$b, 1, 1], max_grid = 1048576, tile = [$t, $t]/" |
    "$TOOLS/fuser-opt" --fuser-gpu-pipeline -o "$OUT/$stem.gpu.mlir"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-ptx -o "$OUT/$stem.ptx"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-manifest -o "$OUT/$stem.manifest.json"
  rm "$OUT/$stem.gpu.mlir"
  echo "[transposesweep] $stem"
done
