#!/usr/bin/env python3
"""torch.cumsum(x, dim=1) on 4096 x 32768 with T threads per row and V
elements per thread (scripts/build-scan-sweep.sh), against PyTorch's: time
(users' timing: CUDA events, L2 flushed, mean), bandwidth (read + write)
and the error against float64 beside eager's. It decides ConfigureScans'
kLongRowVector and the threads per long row.

Usage (on the GPU machine):
  PYTHONPATH=build-gpu/python_packages python3 bench/experiments/scan_sweep.py
"""

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, load, time_interleaved  # noqa: E402

SHAPE = (4096, 32768)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    directory = ARTIFACTS / "scansweep"
    stems = sorted(p.stem for p in directory.glob("row_scan_*.ptx"))
    x = torch.randn(SHAPE, device="cuda")
    want = torch.cumsum(x.double(), dim=1)
    eager_err = float((torch.cumsum(x, dim=1).double() - want).abs().max())
    fns, outs = {"eager": lambda: torch.cumsum(x, dim=1)}, {}
    for stem in stems:
        mod = load(stem, directory)
        out = torch.empty(SHAPE, device="cuda")
        outs[stem] = out
        fns[stem] = (lambda m, o: lambda: m.main(x, out=o))(mod, out)
        fns[stem]()
    res = time_interleaved(fns, args.iters, args.rounds)
    gb = 2 * x.numel() * 4 / 1e9
    print(f"device: {torch.cuda.get_device_name()}; eager max error vs f64 {eager_err:.2e}")
    for name, r in res.items():
        line = f"{name:>18}: {r['mean_ms']:.3f} ms mean, {gb / r['mean_ms']:.2f} TB/s"
        if name in outs:
            err = float((outs[name].double() - want).abs().max())
            line += f", max error vs f64 {err:.2e}"
        print(line)


if __name__ == "__main__":
    main()
