#!/usr/bin/env bash
# Builds W1 (examples/w1_leaky_relu_static.mlir) with pointwise-kernel
# overrides of fuser-configure-kernels into .artifacts/w1sweep/, for
# bench/pointwise_sweep.py on the GPU machine. Run after
# scripts/build-gpu-artifacts.sh (which empties .artifacts/).
#   usage: scripts/build-pointwise-sweep.sh [tools-dir]
# Variants: w1_bs<threads per block>_v<vectors per thread>.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts/w1sweep
rm -rf "$OUT" && mkdir -p "$OUT"
src=examples/w1_leaky_relu_static.mlir
fusion="builtin.module(canonicalize,func.func(fuser-fuse-pointwise,fuser-simplify-group-bodies)"
for bs in ${BLOCKS:-256 512 1024}; do
  for v in ${VECTORS:-1 2 4 8}; do
    stem=w1_bs${bs}_v${v}
    "$TOOLS/fuser-opt" "$src" \
      --pass-pipeline="$fusion,fuser-configure-kernels{block-size=$bs vectors-per-thread=$v})" |
      "$TOOLS/fuser-opt" --fuser-gpu-pipeline -o "$OUT/$stem.gpu.mlir"
    "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-ptx -o "$OUT/$stem.ptx"
    "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-manifest -o "$OUT/$stem.manifest.json"
    rm "$OUT/$stem.gpu.mlir"
    echo "[w1sweep] $stem"
  done
done
