#!/usr/bin/env python3
"""x.sum() of 64M floats: fuser's two-stage reduction (static size: 256
blocks each sum a slice, a second kernel adds their partials in order)
against its one-stage form (dynamic size: one block), PyTorch's x.sum()
and a device copy of the same bytes (the bandwidth ceiling), in us and
GB/s read.

Usage (on the GPU machine, after scripts/build-gpu-artifacts.sh):
  PYTHONPATH=build/python_packages python3 bench/experiments/reduction_scalar.py
"""

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, load, time_interleaved  # noqa: E402

N = 1 << 26  # the static size of test/gpu/Inputs/reduction_scalar.mlir


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--sweep", action="store_true",
                    help="also time .artifacts/redsweep/reduction_scalar_p<P> "
                         "(scripts/build-reduction-sweep.sh: P blocks per output)")
    ap.add_argument("--one-stage", action="store_true",
                    help="also time the one-block form (slow: one SM)")
    args = ap.parse_args()
    mod = load("reduction_scalar")
    print(f"device: {torch.cuda.get_device_name()}")
    x = torch.randn(N, device="cuda")
    out = torch.empty((), device="cuda")
    out_dyn = torch.empty((), device="cuda")
    flat = torch.empty_like(x)
    ref = x.double().sum()
    mod.sum_static(x, out=out)
    print(f"two-stage sum {float(out):.4f}, torch {float(x.sum()):.4f}, "
          f"f64 {float(ref):.4f}")
    fns = {
        "fuser two-stage": lambda: mod.sum_static(x, out=out),
        "torch x.sum()": lambda: x.sum(),
        "device copy (read+write)": lambda: flat.copy_(x),
    }
    if args.one_stage:
        fns["fuser one-stage"] = lambda: mod.sum_dynamic(x, out=out_dyn)
    if args.sweep:
        for ptx in sorted((ARTIFACTS / "redsweep").glob("*.ptx")):
            m = load(f"redsweep/{ptx.stem}")
            o = torch.empty((), device="cuda")
            m.sum_static(x, out=o)
            assert abs(float(o) - float(ref)) < 1e-2, f"{ptx.stem}: {float(o)} vs {float(ref)}"
            fns[f"fuser {ptx.stem}"] = lambda m=m, o=o: m.sum_static(x, out=o)
    res = time_interleaved(fns, args.iters)
    nbytes = x.numel() * x.element_size()
    print(f"sum of {N} f32 ({nbytes / 1e6:.0f} MB read):")
    for name, r in res.items():
        moved = 2 * nbytes if name.startswith("device copy") else nbytes
        us = r["median_ms"] * 1e3
        print(f"  {name:26s} {us:9.1f} us  {moved / (r['median_ms'] * 1e-3) / 1e9:7.0f} GB/s")
    t = res["torch x.sum()"]["median_ms"] / res["fuser two-stage"]["median_ms"]
    print(f"  fuser two-stage vs torch: {t:.2f}x")


if __name__ == "__main__":
    main()
