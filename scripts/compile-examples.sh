#!/usr/bin/env bash
# Compiles every examples/*.mlir to PTX, a kernel manifest and a C header.
# Usage: compile-examples.sh <tools-dir> <out-dir> [extra --fuser-gpu-pipeline options]
set -euo pipefail
TOOLS=${1:-build/bin}
OUT=${2:-out}
OPTS=${3:-}
mkdir -p "$OUT"
ptxas=$(command -v ptxas || true)
[ -z "$ptxas" ] && [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas

for src in examples/*.mlir; do
  stem=$(basename "$src" .mlir)
  echo "[fuser] $src"
  "$TOOLS/fuser-opt" "$src" --fuser-gpu-pipeline="$OPTS" -o "$OUT/$stem.gpu.mlir"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-ptx -o "$OUT/$stem.ptx"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-manifest -o "$OUT/$stem.manifest.json"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-c-header \
    --fuser-header-prefix="$(echo "$stem" | tr -c 'A-Za-z0-9_\n' '_')" -o "$OUT/$stem.h"
  kernels=$(grep -c '^\.visible \.entry' "$OUT/$stem.ptx" || true)
  if [ -n "$ptxas" ]; then
    arch=$(sed -n 's/^\.target \(sm_[0-9a-z]*\).*/\1/p' "$OUT/$stem.ptx")
    "$ptxas" -arch="$arch" "$OUT/$stem.ptx" -o "$OUT/$stem.cubin"
    echo "        $kernels kernel(s); ptxas -arch=$arch accepted it"
  else
    echo "        $kernels kernel(s); ptxas not found, PTX not assembled"
  fi
done
echo "[fuser] artifacts in $OUT/: <name>.ptx, <name>.manifest.json, <name>.h (and .cubin)"
