"""Reductions that fuser's reduction kernel does not take (max and argmax
over a middle dimension: two results, value and index) and that the generic
fallback lowering compiles, against eager PyTorch: the fallback's speed on
the shape users met it at (128 x 4096 x 4095, dim 1), with amax (one result:
the reduction kernel) beside it.

Where torch-mlir is (it compiles the packages into .artifacts/experiments):
    PYTHONPATH=build/python_packages .venv/bin/python \\
        bench/experiments/fallback_reductions.py --build
On the GPU machine:
    FUSER_ARTIFACTS=.artifacts python3 bench/experiments/fallback_reductions.py
"""

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, time_interleaved  # noqa: E402

SHAPE = (128, 4096, 4095)
OUT = ARTIFACTS / "experiments"


class Max(torch.nn.Module):
    def forward(self, x):
        return torch.max(x, dim=1)


class ArgMax(torch.nn.Module):
    def forward(self, x):
        return torch.argmax(x, dim=1)


class AMax(torch.nn.Module):
    def forward(self, x):
        return torch.amax(x, dim=1)


MODELS = {"max": Max, "argmax": ArgMax, "amax": AMax}


def build():
    import fuser.torch as ft
    OUT.mkdir(parents=True, exist_ok=True)
    for name, cls in MODELS.items():
        c = ft.compile(cls(), torch.empty(SHAPE, device="meta"), fallback=False,
                       report=False)
        ft.save(c, OUT / f"{name}.fuser")
        print(f"[fallback] {name}: {c.fuser_kernels}")


def run(iters, rounds):
    import fuser.torch as ft
    x = torch.randn(SHAPE, device="cuda")
    gb = x.numel() * 4 / 1e9
    for name, cls in MODELS.items():
        path = OUT / f"{name}.fuser"
        if not path.exists():
            print(f"[fallback] {name}: no package (run with --build where torch-mlir is)")
            continue
        model = cls()
        fused = ft.load(path, module=model)
        with torch.no_grad():
            got, want = fused(x), model(x)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        same = all(torch.equal(a, b) for a, b in zip(got, want))
        with torch.no_grad():
            res = time_interleaved({"fuser": lambda: fused(x), "eager": lambda: model(x)},
                                   iters, rounds)
        f, e = res["fuser"]["median_ms"], res["eager"]["median_ms"]
        print(f"[fallback] {name}: fuser {f:.3f} ms ({gb / f * 1e3:.0f} GB/s), eager {e:.3f} ms, "
              f"{e / f:.3f}x eager; results equal eager's: {same}; kernels {fused.fuser_kernels}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if args.build:
        build()
    else:
        run(args.iters, args.rounds)


if __name__ == "__main__":
    main()
