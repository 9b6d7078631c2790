#!/usr/bin/env bash
# Builds x * W^T (nn.Linear's layout, static sizes) under configure-kernels
# overrides into .artifacts/gemmsweep/<class>__<variant>, for
# bench/experiments/gemm_sweep.py on the GPU machine: tile shapes and split K against
# wave quantization (tiles that leave part of the last wave of 132 blocks
# idle). Run after scripts/build-gpu-artifacts.sh (which empties .artifacts/).
#   usage: scripts/build-gemm-sweep.sh [tools-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts/gemmsweep
rm -rf "$OUT" && mkdir -p "$OUT"
variant() { # variant <class> <M> <N> <K> <name> [configure-kernels options]
  local x="tensor<$2x$4xf32>" w="tensor<$3x$4xf32>" y="tensor<$2x$3xf32>" stem="$1__$5"
  printf '%s\n' "func.func @forward(%x: $x, %w: $w) -> $y {" \
    "  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : $x, $w -> $y {" \
    "  ^bb0(%acc: f32):" "    fuser.yield %acc : f32" "  }" "  return %y : $y" "}" > "$OUT/$stem.mlir"
  "$TOOLS/fuser-opt" "$OUT/$stem.mlir" \
    "--pass-pipeline=builtin.module(func.func(fuser-fuse-matmul),fuser-configure-kernels{${6:-}})" |
    "$TOOLS/fuser-opt" --fuser-gpu-pipeline -o "$OUT/$stem.gpu.mlir"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-ptx -o "$OUT/$stem.ptx"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-manifest -o "$OUT/$stem.manifest.json"
  rm "$OUT/$stem.mlir" "$OUT/$stem.gpu.mlir"
  echo "[gemmsweep] $stem"
}
bn64="tile-sizes=128,64,32,16,64,4"
variant linear_odd 1000 3000 1000 default
variant linear_odd 1000 3000 1000 bn64 "$bn64"
variant linear_odd 1000 3000 1000 split2 "split-k=2"
variant linear_odd 1000 3000 1000 bn64_split2 "$bn64 split-k=2"
# 128 x 96 tiles: 8 x 32 = 256 tiles, 1.94 waves of 132 (128 x 128: 192, 1.45).
variant linear_odd 1000 3000 1000 bn96 "tile-sizes=128,96,32,16,96,3"
variant linear_odd 1000 3000 1000 bn96s4 "tile-sizes=128,96,32,16,96,4"
variant large_k 256 256 131072 default
variant large_k 256 256 131072 split16 "split-k=16"
variant large_k 256 256 131072 split66 "split-k=66"
variant large_k 256 256 131072 bn64 "$bn64"
variant square 4096 4096 4096 default
variant square 4096 4096 4096 bn64 "$bn64"
