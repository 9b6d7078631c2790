#!/usr/bin/env bash
# The whole GPU check in one call on the GPU machine (which has no MLIR):
#   1. builds the runtime, its unit tests and the Python bindings;
#   2. runs the unit tests, the Python tests and test/gpu on the GPU;
#   3. times the examples against PyTorch eager and torch.compile (bench/bench.py);
#   4. with --sanitize, reruns the small GPU tests under compute-sanitizer
#      (memcheck, racecheck, synccheck, initcheck);
#   5. with --suite TOPICS, runs those topics of bench/suite.py (all: every case);
#   6. with the benchmarks, the host time per call (bench/host_overhead.py);
#   7. with --memory-bound [MODELS|all], the memory-bound models against eager and
#      torch.compile (bench/memory_bound.py; its packages are built beforehand with --build);
#   8. with --gemm-models [MODELS|all], the GEMM models the same way (bench/gemm_models.py).
# The artifacts come from scripts/build-gpu-artifacts.sh, run beforehand where
# MLIR is, and travel in .artifacts/. Results go to $OUT (or bench/results/latest);
# the *.log files written there are not committed (.gitignore).
#   usage: bench/gpu-check.sh [--skip-tests] [--skip-bench] [--sanitize] [--only w1,chain]
#                             [--suite gemm,training] [--memory-bound all] [--gemm-models all]
#   bench cases: w1 chain w2 w3 gn gn_small w2tf32 w2bf16 mm_tf32 mm_tf32_4096 mm_bf16
#   mm_bf16_4096 (default), and the tile sweeps w2v (FFMA) and mmav (tensor cores)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-bench/results/latest}
mkdir -p "$OUT_DIR"
export PYTHONUNBUFFERED=1 FUSER_ARTIFACTS=$PWD/.artifacts
RUN_TESTS=1 RUN_BENCH=1 RUN_SANITIZE=0 ONLY=w1,chain,w2,w3,gn,gn_small,w2tf32,w2bf16,mm_tf32,mm_tf32_4096,mm_bf16,mm_bf16_4096 SUITE= MEMORY_BOUND= GEMM_MODELS=
while [ $# -gt 0 ]; do
  case $1 in
    --skip-tests) RUN_TESTS=0 ;;
    --skip-bench) RUN_BENCH=0 ;;
    --sanitize) RUN_SANITIZE=1 ;;
    --only) ONLY=$2; shift ;;
    --suite) SUITE=$2; shift ;;
    --memory-bound) MEMORY_BOUND=$2; shift ;;
    --gemm-models) GEMM_MODELS=$2; shift ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
  shift
done
[ -f .artifacts/w1_leaky_relu_static.ptx ] || { echo "no .artifacts/: run scripts/build-gpu-artifacts.sh first"; exit 2; }
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT_DIR/device.txt"

echo "== build (runtime + bindings, no compiler)"
configure() {
  cmake -G Ninja -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFUSER_ENABLE_COMPILER=OFF \
    -DFUSER_ENABLE_PYTHON=ON -DFUSER_ENABLE_TESTS=$1 -DPython3_EXECUTABLE="$(command -v python3)" \
    >> "$OUT_DIR/build.log" 2>&1
}
tests=ON
configure ON || { tests=OFF; echo "(GoogleTest not found: unit tests skipped)"; rm -rf build-gpu; configure OFF; } \
  || { tail -30 "$OUT_DIR/build.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" >> "$OUT_DIR/build.log" 2>&1 || { tail -30 "$OUT_DIR/build.log"; exit 1; }
export PYTHONPATH=$PWD/build-gpu/python_packages

if [ $RUN_TESTS = 1 ]; then
  if [ $tests = ON ]; then
    echo "== unit tests (ctest)"
    ctest --test-dir build-gpu --output-on-failure > "$OUT_DIR/ctest.log" 2>&1 || status=1
    tail -3 "$OUT_DIR/ctest.log"
  fi
  echo "== Python and GPU tests (pytest)"
  python3 -m pytest -q -rs python-bindings/tests > "$OUT_DIR/pytest.log" 2>&1 || status=1
  tail -3 "$OUT_DIR/pytest.log"
  python3 -m pytest -q -rs -s test/gpu > "$OUT_DIR/pytest-gpu.log" 2>&1 || status=1
  grep -E "max abs error .* over|seed|passed|failed|Error" "$OUT_DIR/pytest-gpu.log" | tail -60
fi
if [ $RUN_SANITIZE = 1 ]; then
  # The full-size workloads take too long under the tools; every kernel kind
  # and the odd shapes still run.
  small="not w1_static and not w2 and not examples and not 513 and not 1024 and not 2_pow_31 and not bench_shapes"
  for tool in memcheck racecheck synccheck initcheck; do
    echo "== compute-sanitizer --tool $tool"
    compute-sanitizer --tool $tool --error-exitcode 99 --target-processes all \
      python3 -m pytest -q -x test/gpu -k "$small" > "$OUT_DIR/sanitize-$tool.log" 2>&1 || status=1
    grep -E "ERROR SUMMARY|passed|failed" "$OUT_DIR/sanitize-$tool.log" | tail -2
    # The examples at their real sizes (W2, W3, the chain, W1 dynamic).
    FUSER_SANITIZE_TOOL=$tool compute-sanitizer --tool $tool --error-exitcode 99 --target-processes all \
      python3 bench/sanitize_examples.py > "$OUT_DIR/sanitize-examples-$tool.log" 2>&1 || status=1
    grep -E "ERROR SUMMARY|examples ran|Error" "$OUT_DIR/sanitize-examples-$tool.log" | tail -2
  done
fi
if [ $RUN_BENCH = 1 ]; then
  echo "== benchmarks"
  python3 bench/bench.py --out "$OUT_DIR" --only "$ONLY" 2>&1 | tee "$OUT_DIR/bench.log" | grep -v "^\[bench\]" || status=1
  echo "== host time per call"
  python3 bench/host_overhead.py --json "$OUT_DIR/host_overhead.json" 2>&1 \
    | tee "$OUT_DIR/host_overhead.log" | grep -v "^\[host\]" || status=1
fi
if [ -n "$SUITE" ]; then
  echo "== suite ($SUITE)"
  [ "$SUITE" = all ] && SUITE=
  python3 bench/suite.py --out "$OUT_DIR" ${SUITE:+--only "$SUITE"} 2>&1 | tee "$OUT_DIR/suite.log" \
    | grep -v "^\[suite\]" || status=1
fi
if [ -n "$MEMORY_BOUND" ]; then
  echo "== memory-bound models ($MEMORY_BOUND)"
  [ "$MEMORY_BOUND" = all ] && MEMORY_BOUND=
  python3 bench/memory_bound.py --out "$OUT_DIR/memory_bound" ${MEMORY_BOUND:+--only "$MEMORY_BOUND"} \
    2>&1 | tee "$OUT_DIR/memory_bound.log" | grep "^|" || status=1
fi
if [ -n "$GEMM_MODELS" ]; then
  echo "== GEMM models ($GEMM_MODELS)"
  [ "$GEMM_MODELS" = all ] && GEMM_MODELS=
  python3 bench/gemm_models.py --out "$OUT_DIR/gemm_models" ${GEMM_MODELS:+--only "$GEMM_MODELS"} \
    2>&1 | tee "$OUT_DIR/gemm_models.log" | grep "^|" || status=1
fi
exit $status
