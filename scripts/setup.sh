#!/usr/bin/env bash
# Installs what fuser needs to build and test, only when it is missing, so a second run is quick.
set -euo pipefail

# clang and its compiler-rt (ASan, UBSan, libFuzzer): the sanitizer and fuzzer
# build in build-asan/ (make sanitize, make fuzz, the fuzz smoke run of make test).
APT_PKGS=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools cmake ninja-build g++ libgtest-dev
          clang libclang-rt-dev)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] installing apt packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
else
  echo "[setup] apt packages present"
fi

PY=${PYTHON:-python3}
PY_PKGS=(nanobind pytest numpy)
pymissing=()
for m in "${PY_PKGS[@]}"; do
  $PY -c "import $m" 2>/dev/null || pymissing+=("$m")
done
if [ ${#pymissing[@]} -gt 0 ]; then
  echo "[setup] installing Python packages: ${pymissing[*]}"
  $PY -m pip install -q "${pymissing[@]}"
else
  echo "[setup] Python packages present"
fi

if [ ! -x /usr/local/cuda/bin/ptxas ] && ! command -v ptxas >/dev/null; then
  echo "[setup] note: ptxas not found; PTX assembly tests will be skipped (REQUIRES: ptxas)"
fi
