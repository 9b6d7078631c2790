#!/usr/bin/env bash
# Compiles the examples and the GPU test inputs here (where MLIR is) into
# .artifacts/, which bench/gpu-check.sh reads on the GPU machine (no MLIR
# there). Usage: scripts/build-gpu-artifacts.sh [tools-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts
rm -rf "$OUT" && mkdir -p "$OUT"
for src in examples/*.mlir test/gpu/Inputs/*.mlir; do
  stem=$(basename "$src" .mlir)
  "$TOOLS/fuser-opt" "$src" --fuser-gpu-pipeline -o "$OUT/$stem.gpu.mlir"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-ptx -o "$OUT/$stem.ptx"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-manifest -o "$OUT/$stem.manifest.json"
  rm "$OUT/$stem.gpu.mlir"
  echo "[artifacts] $stem"
done
# Tensor-core GEMM variants (tf32, 3xtf32, bf16): their own script.
scripts/build-mma-artifacts.sh "$TOOLS"
