#!/usr/bin/env bash
# Builds bench/experiments/Inputs/middle_sum.mlir (a sum over the middle
# dimension, threads a block-row apart) with S threads per output and the
# block the configuration rule gives them (max(256, 32 * S) threads, 32
# outputs per warp-row) into .artifacts/middlesweep/middle_sum_s<S>, for
# bench/experiments/middle_reduction.py on the GPU machine. Run after
# scripts/build-gpu-artifacts.sh (which empties .artifacts/).
#   usage: scripts/build-middle-reduction-sweep.sh [tools-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts/middlesweep
rm -rf "$OUT" && mkdir -p "$OUT"
source scripts/sweep-common.sh
for s in ${THREADS_PER_OUTPUT:-1 2 4 8 16 32}; do
  block=$(( s * 32 > 256 ? s * 32 : 256 ))
  build_config_variant "$TOOLS" bench/experiments/Inputs/middle_sum.mlir "$OUT" "middle_sum_s$s" \
    "s/block = \[[0-9]*, 1, 1\], tile = \[[0-9]*, [0-9]*\]/block = [$block, 1, 1], tile = [$s, $(( block / s ))]/"
  echo "[middlesweep] middle_sum_s$s"
done
