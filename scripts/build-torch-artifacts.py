#!/usr/bin/env python3
"""Compiles the fuser.torch GPU test inputs here (torch-mlir and fuser's
compiler) into .artifacts/torch/, which test/gpu/test_torch_frontend.py reads
on the GPU machine (torch and fuser's runtime only):

  <name>.fuser/             fuser.torch.save packages of the models in
                            test/gpu/Inputs/torch_models.py (PACKAGES)
  linear_leaky_weights.zip  a zip package with its weights (load without a
                            module)
  w1_new.py w2_new.py ...   ModelNew files from examples/torch/w*.py
                            (python -m fuser.torch.kernelbench)
  index.json                kernels and compile times of each

Run under the project venv (make venv), e.g. from build-gpu-artifacts.sh:
    PYTHONPATH=build/python_packages .venv/bin/python scripts/build-torch-artifacts.py
"""

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))

import torch  # noqa: E402

import fuser.torch as ft  # noqa: E402
from fuser.torch import kernelbench  # noqa: E402
import torch_models  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / ".artifacts" / "torch")
    parser.add_argument("--chip", default="sm_90a")
    args = parser.parse_args()
    out = args.out
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    index = {"torch": torch.__version__, "chip": args.chip, "packages": {},
             "model_new": {}}

    for name, (cls, ctor, shape, dynamic) in torch_models.PACKAGES.items():
        model = torch_models.build(name)
        start = time.perf_counter()
        compiled = ft.compile(model, torch.empty(shape), dynamic=dynamic,
                              chip=args.chip, fallback=False)
        seconds = time.perf_counter() - start
        ft.save(compiled, out / f"{name}.fuser")
        index["packages"][name] = {"kernels": compiled.fuser_kernels,
                                   "seconds": round(seconds, 2)}
        print(f"[torch artifacts] {name}: {compiled.fuser_kernels} "
              f"({seconds:.2f} s)")

    torch.manual_seed(torch_models.WEIGHTS_SEED)
    model = torch_models.LinearLeaky()
    compiled = ft.compile(model, torch.empty(64, 256), dynamic="batch",
                          chip=args.chip, fallback=False)
    ft.save(compiled, out / torch_models.WEIGHTS_PACKAGE, weights=True)
    print(f"[torch artifacts] {torch_models.WEIGHTS_PACKAGE}")

    for seed in torch_models.SEEDS:
        start = time.perf_counter()
        text = kernelbench.convert(ROOT / "examples" / "torch" / f"{seed}.py",
                                   chip=args.chip)
        seconds = time.perf_counter() - start
        (out / f"{seed}_new.py").write_text(text)
        index["model_new"][seed] = {"seconds": round(seconds, 2)}
        print(f"[torch artifacts] {seed}_new.py ({seconds:.2f} s)")

    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
