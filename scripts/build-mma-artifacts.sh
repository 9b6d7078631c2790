#!/usr/bin/env bash
# Compiles the tensor-core GEMM (MmaGemmKernel) test inputs and W2 variants
# into .artifacts/ next to what scripts/build-gpu-artifacts.sh writes (which
# calls this); can also run alone. Usage: scripts/build-mma-artifacts.sh [tools-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts
mkdir -p "$OUT"
# Tensor-core GEMMs (MmaGemmKernel): W2 and test/gpu/Inputs/mma/*.mlir as
# mma_<stem>_<precision> for tf32, 3xtf32 and fp64 (fp32-kernel=fp64, the
# default fp32 kernel on sm_90); inputs named *bf16* / *f16*
# get their own precision by default (mma_<stem>). Then W2 tile variants
# (mma_w2v_<precision>_<tile>) for bench.py's "mmav" case.
mma() { # mma <src> <out stem> <precision> [tile-sizes]
  local pre="" tiles=${4:-} opts="precision=$3"
  [ "$3" = fp64 ] && opts="precision=fp32 fp32-kernel=fp64"
  [ -n "$tiles" ] && pre="--pass-pipeline=builtin.module(func.func(fuser-fuse-matmul),fuser-configure-kernels{$opts tile-sizes=$tiles})"
  if [ -n "$pre" ]; then
    "$TOOLS/fuser-opt" "$1" "$pre" | "$TOOLS/fuser-opt" --fuser-gpu-pipeline="$opts" -o "$OUT/$2.gpu.mlir"
  else
    "$TOOLS/fuser-opt" "$1" --fuser-gpu-pipeline="$opts" -o "$OUT/$2.gpu.mlir"
  fi
  "$TOOLS/fuser-translate" "$OUT/$2.gpu.mlir" --fuser-to-ptx -o "$OUT/$2.ptx"
  "$TOOLS/fuser-translate" "$OUT/$2.gpu.mlir" --fuser-to-manifest -o "$OUT/$2.manifest.json"
  rm "$OUT/$2.gpu.mlir"
  echo "[artifacts] $2"
}
for p in tf32 3xtf32 fp64; do
  mma examples/w2_linear_scale_leaky.mlir "mma_w2_$p" $p
done
for src in test/gpu/Inputs/mma/*.mlir; do
  stem=$(basename "$src" .mlir)
  case $stem in
    *bf16*|*f16*) mma "$src" "mma_$stem" fp32 ;;
    *) for p in tf32 3xtf32 fp64; do mma "$src" "mma_${stem}_$p" $p; done ;;
  esac
done
for v in tf32:128,128,32,64,32,3 tf32:256,128,16,64,64,4 bf16:128,256,16,64,64,4 \
         bf16:128,128,32,64,32,4 bf16:128,256,32,64,64,3; do
  p=${v%%:*} t=${v#*:}
  src=examples/w2_linear_scale_leaky.mlir
  [ $p = bf16 ] && src=test/gpu/Inputs/mma/w2_bf16.mlir
  mma "$src" "mma_w2v_${p}_${t//,/x}" $p "$t"
done
