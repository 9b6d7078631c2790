#!/usr/bin/env bash
# Builds W1 (examples/w1_leaky_relu_static.mlir) with pointwise-kernel
# overrides of fuser-configure-kernels into .artifacts/w1sweep/, for
# bench/experiments/pointwise_sweep.py on the GPU machine. Run after
# scripts/build-gpu-artifacts.sh (which empties .artifacts/).
#   usage: scripts/build-pointwise-sweep.sh [tools-dir]
# Variants: w1_bs<threads per block>_v<vectors per thread>; then W1 and the
# seed chain (examples/pointwise_chain.mlir) at each l2-prefetch size,
# <w1|chain>_l2_<bytes>, for bench/experiments/l2_prefetch.py.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts/w1sweep
rm -rf "$OUT" && mkdir -p "$OUT"
src=examples/w1_leaky_relu_static.mlir
fusion="builtin.module(canonicalize,func.func(fuser-fuse-pointwise,fuser-simplify-group-bodies)"
build() { # build <src> <stem> <configure-kernels options>
  "$TOOLS/fuser-opt" "$1" --pass-pipeline="$fusion,fuser-configure-kernels{$3})" |
    "$TOOLS/fuser-opt" --fuser-gpu-pipeline -o "$OUT/$2.gpu.mlir"
  "$TOOLS/fuser-translate" "$OUT/$2.gpu.mlir" --fuser-to-ptx -o "$OUT/$2.ptx"
  "$TOOLS/fuser-translate" "$OUT/$2.gpu.mlir" --fuser-to-manifest -o "$OUT/$2.manifest.json"
  rm "$OUT/$2.gpu.mlir"
  echo "[w1sweep] $2"
}
for bs in ${BLOCKS:-256 512 1024}; do
  for v in ${VECTORS:-1 2 4 8}; do
    build "$src" "w1_bs${bs}_v${v}" "block-size=$bs vectors-per-thread=$v"
  done
done
# The default fusion and configuration, then the pointwise configs'
# l2_prefetch set (0: left out, the default).
source scripts/sweep-common.sh
for l2 in ${PREFETCH:-0 64 128 256}; do
  sub="s/max_grid = 1048576>/max_grid = 1048576, l2_prefetch = $l2>/g"
  [ "$l2" = 0 ] && sub="s/^//"
  for w in "w1 $src" "chain examples/pointwise_chain.mlir"; do
    build_config_variant "$TOOLS" "${w#* }" "$OUT" "${w%% *}_l2_$l2" "$sub"
    echo "[w1sweep] ${w%% *}_l2_$l2"
  done
done
