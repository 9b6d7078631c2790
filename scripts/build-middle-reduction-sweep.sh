#!/usr/bin/env bash
# Builds bench/experiments/Inputs/middle_sum.mlir (a sum over the middle
# dimension, threads a block-row apart) with S threads per output and W
# outputs per block-row (a block of W * S threads, 256 to 1024) into
# .artifacts/middlesweep/middle_sum_s<S>_w<W>, for
# bench/experiments/middle_reduction.py on the GPU machine. Run after
# scripts/build-gpu-artifacts.sh (which empties .artifacts/).
#   usage: [THREADS_PER_OUTPUT="1 2 ..."] [OUTPUTS_PER_ROW="32 64"] \
#          scripts/build-middle-reduction-sweep.sh [tools-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts/middlesweep
rm -rf "$OUT" && mkdir -p "$OUT"
source scripts/sweep-common.sh
for w in ${OUTPUTS_PER_ROW:-32}; do
  for s in ${THREADS_PER_OUTPUT:-1 2 4 8 16 32}; do
    block=$(( s * w ))
    # A block of at least 256 threads (the rule's), at most 1024.
    (( block >= 256 && block <= 1024 )) || continue
    build_config_variant "$TOOLS" bench/experiments/Inputs/middle_sum.mlir "$OUT" "middle_sum_s${s}_w$w" \
      "s/block = \[[0-9]*, 1, 1\], tile = \[[0-9]*, [0-9]*\]/block = [$block, 1, 1], tile = [$s, $(( block / s ))]/"
    echo "[middlesweep] middle_sum_s${s}_w$w"
  done
done
