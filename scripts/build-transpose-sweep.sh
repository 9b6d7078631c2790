#!/usr/bin/env bash
# Builds test/gpu/Inputs/transpose.mlir with the pointwise_transpose configs'
# tile and block replaced, into .artifacts/transposesweep/t<TILE>_b<BLOCK>,
# for bench/experiments/transpose.py --sweep on the GPU machine. Run after
# scripts/build-gpu-artifacts.sh (which empties .artifacts/).
#   usage: scripts/build-transpose-sweep.sh [tools-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts/transposesweep
rm -rf "$OUT" && mkdir -p "$OUT"
source scripts/sweep-common.sh
for v in ${VARIANTS:-32:256 32:512 32:1024 64:256 64:512 64:1024}; do
  t=${v%%:*} b=${v#*:}
  build_config_variant "$TOOLS" test/gpu/Inputs/transpose.mlir "$OUT" "t${t}_b$b" \
    "s/block = \[256, 1, 1\], max_grid = 1048576, tile = \[64, 64\]/block = [$b, 1, 1], max_grid = 1048576, tile = [$t, $t]/"
  echo "[transposesweep] t${t}_b$b"
done
