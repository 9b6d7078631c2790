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
# A real torch-mlir export (F.leaky_relu(x, 0.01), dynamic batch): its scalar
# constants must become immediates (test/gpu/test_host_constants.py).
src=test/Pipelines/Inputs/torch_leaky_relu_dynamic.mlir
"$TOOLS/fuser-opt" "$src" --fuser-gpu-pipeline -o "$OUT/torch_leaky_relu_dynamic.gpu.mlir"
"$TOOLS/fuser-translate" "$OUT/torch_leaky_relu_dynamic.gpu.mlir" --fuser-to-ptx -o "$OUT/torch_leaky_relu_dynamic.ptx"
"$TOOLS/fuser-translate" "$OUT/torch_leaky_relu_dynamic.gpu.mlir" --fuser-to-manifest \
  -o "$OUT/torch_leaky_relu_dynamic.manifest.json"
rm "$OUT/torch_leaky_relu_dynamic.gpu.mlir"
echo "[artifacts] torch_leaky_relu_dynamic"
# The torch-mlir corpus (test/Pipelines/Inputs/torch_*.mlir) with the default
# options, for test/gpu/test_torch_corpus.py: .artifacts/corpus/<stem>.
mkdir -p "$OUT/corpus"
for src in test/Pipelines/Inputs/torch_*.mlir; do
  stem=$(basename "$src" .mlir)
  "$TOOLS/fuser-opt" "$src" --fuser-gpu-pipeline -o "$OUT/corpus/$stem.gpu.mlir"
  "$TOOLS/fuser-translate" "$OUT/corpus/$stem.gpu.mlir" --fuser-to-ptx -o "$OUT/corpus/$stem.ptx"
  "$TOOLS/fuser-translate" "$OUT/corpus/$stem.gpu.mlir" --fuser-to-manifest -o "$OUT/corpus/$stem.manifest.json"
  rm "$OUT/corpus/$stem.gpu.mlir"
done
echo "[artifacts] corpus: $(ls "$OUT"/corpus/*.ptx | wc -l) torch-mlir exports"
# The C header of the host-constants input, for test/gpu/test_host_constants.py.
"$TOOLS/fuser-opt" test/gpu/Inputs/host_constants.mlir --fuser-gpu-pipeline \
  | "$TOOLS/fuser-translate" --fuser-to-c-header --fuser-header-prefix=hc -o "$OUT/host_constants.h"
# The FFMA kernel where the default is fp64 tensor cores: <stem>_ffma.
for src in examples/w2_linear_scale_leaky.mlir examples/w3_linear_groupnorm.mlir \
           test/gpu/Inputs/matmul_w2.mlir test/gpu/Inputs/linear_group_norm_odd.mlir \
           test/gpu/Inputs/matmul_batched_transposed.mlir; do
  stem=$(basename "$src" .mlir)_ffma
  "$TOOLS/fuser-opt" "$src" --fuser-gpu-pipeline="fp32-kernel=ffma" -o "$OUT/$stem.gpu.mlir"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-ptx -o "$OUT/$stem.ptx"
  "$TOOLS/fuser-translate" "$OUT/$stem.gpu.mlir" --fuser-to-manifest -o "$OUT/$stem.manifest.json"
  rm "$OUT/$stem.gpu.mlir"
  echo "[artifacts] $stem"
done
# Tensor-core GEMM variants (tf32, 3xtf32, fp64, bf16): their own script.
scripts/build-mma-artifacts.sh "$TOOLS"
# fuser.torch packages and ModelNew files (test/gpu/test_torch_frontend.py) into
# .artifacts/torch/: they need torch-mlir, from the project venv (make venv).
if [ -x .venv/bin/python ] && .venv/bin/python -c "import torch_mlir" 2>/dev/null; then
  PYTHONPATH="$(dirname "$TOOLS")/python_packages" FUSER_TOOLS_DIR="$TOOLS" \
    .venv/bin/python scripts/build-torch-artifacts.py
  # bench/memory_bound.py's models (.artifacts/memory_bound/).
  PATH="$TOOLS:$PATH" PYTHONPATH="$(dirname "$TOOLS")/python_packages" FUSER_TOOLS_DIR="$TOOLS" \
    .venv/bin/python bench/memory_bound.py --build
  # bench/gemm_models.py's models (.artifacts/gemm_models/).
  PATH="$TOOLS:$PATH" PYTHONPATH="$(dirname "$TOOLS")/python_packages" FUSER_TOOLS_DIR="$TOOLS" \
    .venv/bin/python bench/gemm_models.py --build
else
  echo "[artifacts] no .venv with torch-mlir (make venv): .artifacts/torch skipped"
fi
