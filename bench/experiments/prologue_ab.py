"""A matmul prologue against its producer computed by a kernel of its own.

dX = g . W with g = where(y > 0, dy, 0.1 dy) * 2 (nn.Linear's backward
through leaky_relu; with one input, y = dy), M = 1024, K = 8192, W N-major,
3xtf32 on wgmma_tma: `prologue<I>_<N>` computes g in the GEMM's splitter
from its I inputs (read once per N tile), `materialized<I>_<N>` writes g
with a pointwise kernel and the GEMM reads it. All from
scripts/build-mma-artifacts.sh. Prints the times (interleaved rounds, CUDA
events) and each one's max error against a float64 reference. Needs only
torch and fuser's runtime:

    FUSER_ARTIFACTS=.artifacts python3 bench/experiments/prologue_ab.py [--n 256 512 2048 8192]
"""

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import load, time_interleaved  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[256, 512, 2048, 8192])
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    torch.manual_seed(0)
    print(f"{torch.cuda.get_device_name()}: dX = where(y > 0, dy, 0.1 dy) * 2 . W, "
          f"M = 1024, K = 8192")
    print(f"{'inputs':>6} {'N':>6} {'prologue ms':>12} {'materialized ms':>16} {'ratio':>7} "
          f"{'prologue err':>13} {'materialized err':>17}")
    for inputs, n in [(i, n) for i in (1, 2) for n in args.n]:
        dy = torch.randn(1024, 8192, device="cuda")
        y = torch.randn(1024, 8192, device="cuda") if inputs == 2 else dy
        w = torch.randn(8192, n, device="cuda") / 64
        g = torch.where(y.double() > 0, dy.double(), 0.1 * dy.double()) * 2
        ref = g @ w.double()
        mods = {v: load(f"{v}{inputs}_{n}") for v in ("prologue", "materialized")}
        errs = {}
        for v, mod in mods.items():
            got = mod.forward(dy, y, w)
            errs[v] = float((got.double() - ref).abs().max())
            assert errs[v] < 1e-3, (v, n, errs[v])
        res = time_interleaved({v: (lambda m=m: m.forward(dy, y, w))
                                for v, m in mods.items()}, args.iters, args.rounds)
        p, m = res["prologue"]["median_ms"], res["materialized"]["median_ms"]
        print(f"{inputs:>6} {n:>6} {p:12.3f} {m:16.3f} {m / p:6.3f}x {errs['prologue']:13.2e} "
              f"{errs['materialized']:17.2e}", flush=True)


if __name__ == "__main__":
    main()
