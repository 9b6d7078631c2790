#!/usr/bin/env bash
# Installs what fuser needs to build and test, only when it is missing, so a second run is quick.
set -euo pipefail
PY=${PYTHON:-python3}

# `setup.sh --venv DIR` (make venv, part of make test): the front end's venv
# for fuser.torch and its tests, made from $PY, the interpreter the
# _fuser_runtime extension is built for (the torch-mlir wheel is cp311 only).
# PyPI's torch is the CUDA build: ~5.7 GB, about two minutes. transformers and
# timm build the real-model corpus's blocks (test/gpu/Inputs/model_blocks.py).
if [ "${1:-}" = "--venv" ]; then
  VENV=${2:?usage: setup.sh --venv DIR}
  TORCH_PKGS=(torch==2.14.1 torch-mlir==20261001 pytest numpy transformers==5.24.0 timm==1.0.31)
  want="$($PY -c 'import sys; print("python%d.%d" % sys.version_info[:2])') ${TORCH_PKGS[*]}"
  if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.fuser-packages" 2>/dev/null)" = "$want" ]; then
    echo "[setup] venv $VENV present"
    exit 0
  fi
  echo "[setup] creating venv $VENV ($want; ~5.7 GB, about two minutes)"
  if [ -e "$VENV" ]; then
    [ -f "$VENV/pyvenv.cfg" ] || { echo "[setup] $VENV exists and is not a venv; not replacing it" >&2; exit 1; }
    rm -rf "$VENV"
  fi
  $PY -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q "${TORCH_PKGS[@]}"
  echo "$want" > "$VENV/.fuser-packages"
  exit 0
fi

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
