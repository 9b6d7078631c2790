#!/usr/bin/env bash
# Builds bench/experiments/Inputs/row_scan.mlir (a cumsum along rows of
# 32768 floats) with T threads per row and V elements per thread (16-byte
# accesses) into .artifacts/scansweep/row_scan_t<T>_v<V>, for
# bench/experiments/scan_sweep.py on the GPU machine. Run after
# scripts/build-gpu-artifacts.sh (which empties .artifacts/).
#   usage: scripts/build-scan-sweep.sh [tools-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts/scansweep
rm -rf "$OUT" && mkdir -p "$OUT"
source scripts/sweep-common.sh
for tv in ${VARIANTS:-1024x16 512x16 256x16 1024x8 512x8 256x32 128x32}; do
  t=${tv%x*} v=${tv#*x}
  block=$(( t > 256 ? t : 256 ))
  build_config_variant "$TOOLS" bench/experiments/Inputs/row_scan.mlir "$OUT" "row_scan_t${t}_v${v}" \
    "s/block = \[[0-9]*, 1, 1\], vector_width = 4, tile = \[[0-9]*, [0-9]*, [0-9]*\]/block = [$block, 1, 1], vector_width = 4, tile = [$t, $(( block / t )), $v]/"
  echo "[scansweep] row_scan_t${t}_v${v}"
done
