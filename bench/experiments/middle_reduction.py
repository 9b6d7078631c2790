#!/usr/bin/env python3
"""torch.sum(x, dim=1) on 128 x 4096 x 4095 (a reduction over the middle
dimension: threads a block-row apart) with S = 1 ... 32 threads per output
(scripts/build-middle-reduction-sweep.sh), against PyTorch's: time, read
bandwidth, and the error against float64 beside eager's. It decided
ConfigureReductions' kMaxFoldsPerThread.

Usage (on the GPU machine):
  PYTHONPATH=build-gpu/python_packages python3 bench/experiments/middle_reduction.py
"""

import argparse
import re
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, load, time_interleaved  # noqa: E402

SHAPE = (128, 4096, 4095)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    directory = ARTIFACTS / "middlesweep"
    stems = sorted((p.stem for p in directory.glob("middle_sum_s*_w*.ptx")),
                   key=lambda s: tuple(int(n) for n in re.findall(r"\d+", s)))
    x = torch.randn(SHAPE, device="cuda")
    want = torch.sum(x.double(), dim=1)
    eager = torch.sum(x, dim=1)
    eager_err = float((eager.double() - want).abs().max())
    fns, outs = {"eager": lambda: torch.sum(x, dim=1)}, {}
    for stem in stems:
        mod = load(stem, directory)
        out = torch.empty(SHAPE[0], SHAPE[2], device="cuda")
        outs[stem] = out
        fns[stem] = (lambda m, o: lambda: m.main(x, out=o))(mod, out)
        fns[stem]()
    res = time_interleaved(fns, args.iters, args.rounds)
    gb = x.numel() * 4 / 1e9
    print(f"device: {torch.cuda.get_device_name()}; eager max error vs f64 {eager_err:.2e}")
    for name, r in res.items():
        line = f"{name:>20}: {r['mean_ms']:.3f} ms mean, {gb / r['mean_ms'] * 1e3:.0f} GB/s read"
        if name in outs:
            err = float((outs[name].double() - want).abs().max())
            ok = torch.allclose(outs[name], eager, atol=1e-4, rtol=1e-4)
            line += f", max error vs f64 {err:.2e}, allclose to eager at 1e-4: {ok}"
        print(line)


if __name__ == "__main__":
    main()
