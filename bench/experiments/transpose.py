#!/usr/bin/env python3
"""Bandwidth of transposed copies: fuser's shared-memory tiled kernel
(pointwise_transpose) against its row kernel on the same copy, PyTorch's
x.t().contiguous() and a straight device copy of the same bytes (the
ceiling), each in GB/s (bytes read + written per second).

Usage (on the GPU machine, after scripts/build-gpu-artifacts.sh):
  PYTHONPATH=build/python_packages python3 bench/experiments/transpose.py [--sizes 8192x8192,4097x1000]
"""

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, load, time_interleaved  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8192x8192,4096x16384,4097x1000,1000x4097",
                    help="comma-separated ROWSxCOLS of the input")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--sweep", action="store_true",
                    help="also time .artifacts/transposesweep/t<TILE>_b<BLOCK> "
                         "(scripts/build-transpose-sweep.sh)")
    args = ap.parse_args()
    sweep = {p.stem: load(f"transposesweep/{p.stem}")
             for p in sorted((ARTIFACTS / "transposesweep").glob("*.ptx"))} if args.sweep else {}
    mod = load("transpose")
    print(f"device: {torch.cuda.get_device_name()}")
    for size in args.sizes.split(","):
        rows, cols = (int(s) for s in size.split("x"))
        x = torch.randn(rows, cols, device="cuda")
        out = torch.empty(cols, rows, device="cuda")
        out_rows = torch.empty_like(out)
        flat = torch.empty_like(x)
        mod.copy(x, out=out)
        mod.copy_rows(x, out=out_rows)
        assert torch.equal(out, x.t()) and torch.equal(out_rows, x.t())
        fns = {}
        for stem, m in sweep.items():
            o = torch.full_like(out, float("nan"))
            m.copy(x, out=o)
            assert torch.equal(o, x.t()), stem
            fns[f"fuser tiled {stem}"] = lambda m=m, o=o: m.copy(x, out=o)
        res = time_interleaved({**fns,
            "fuser tiled": lambda: mod.copy(x, out=out),
            "fuser rows": lambda: mod.copy_rows(x, out=out_rows),
            "torch x.t().contiguous()": lambda: x.t().contiguous(),
            "straight copy": lambda: flat.copy_(x),
        }, args.iters)
        fns.clear()
        nbytes = 2 * x.numel() * x.element_size()
        print(f"{rows}x{cols} f32 ({nbytes / 1e6:.0f} MB moved):")
        for name, r in res.items():
            us = r["median_ms"] * 1e3
            print(f"  {name:26s} {us:9.1f} us  {nbytes / (r['median_ms'] * 1e-3) / 1e9:7.0f} GB/s")
        del x, out, out_rows, flat
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
