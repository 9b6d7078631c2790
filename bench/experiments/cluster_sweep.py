"""tf32 and bf16 GEMMs with and without 2-block clusters (cluster-m=2:
blocks in pairs sharing each B tile by TMA multicast), against cuBLAS, in
interleaved rounds (bench.time_interleaved: L2 flushed before each call).

The artifacts are the bare x * W^T with static sizes that
scripts/build-mma-artifacts.sh compiles as
.artifacts/cluster_<precision>_<M>x<N>x<K>_c<1|2>. Inputs: --data bench
(bench.py's W2 data: x in [0, 1), nn.Linear's weights) or random (both
signs in [-0.5, 0.5)); the tensor cores' power, and so the clocks, differ
between them (bench/results/H100-2026-11-25-clusters.md). Needs only
torch and fuser's runtime.

Usage: python3 bench/experiments/cluster_sweep.py [--data bench|random] [--iters N] [--rounds R]
"""

import argparse
import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, load, time_interleaved  # noqa: E402

SHAPES = ["1024x8192x8192", "4096x4096x4096", "32768x1024x1024", "2048x2048x8192"]


def inputs(m, n, k, dtype, data):
    if data == "bench":
        x = torch.rand(m, k, device="cuda")
        w = (torch.rand(n, k, device="cuda") * 2 - 1) / math.sqrt(k)
    else:
        x = torch.rand(m, k, device="cuda") - 0.5
        w = torch.rand(n, k, device="cuda") - 0.5
    return x.to(dtype), w.to(dtype)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", choices=["bench", "random"], default="bench")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    print(f"[clusters] {torch.cuda.get_device_name()}, data {args.data}; "
          "ratios: cuBLAS / fuser, and single blocks / clusters")
    for prec, dtype in (("tf32", torch.float32), ("bf16", torch.bfloat16)):
        for shape in SHAPES:
            stems = [f"cluster_{prec}_{shape}_c{c}" for c in (1, 2)]
            if not all((ARTIFACTS / f"{s}.ptx").exists() for s in stems):
                print(f"[clusters] {prec} {shape}: artifacts missing, skipped")
                continue
            m, n, k = (int(v) for v in shape.split("x"))
            x, w = inputs(m, n, k, dtype, args.data)
            single, paired = (load(s) for s in stems)
            out1 = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
            out2 = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
            single.forward(x, w, out=out1)
            paired.forward(x, w, out=out2)
            assert torch.equal(out1, out2), f"{prec} {shape}: clusters change the result"
            res = time_interleaved({
                "cublas": lambda: torch.mm(x, w.T),
                "single": lambda: single.forward(x, w, out=out1),
                "clusters": lambda: paired.forward(x, w, out=out2)}, args.iters, args.rounds)
            t = {name: r["median_ms"] for name, r in res.items()}
            print(f"[clusters] {prec} {shape}: cuBLAS {t['cublas']:.4f} ms, single "
                  f"{t['single']:.4f} ({t['cublas'] / t['single']:.3f}x), clusters "
                  f"{t['clusters']:.4f} ({t['cublas'] / t['clusters']:.3f}x), clusters "
                  f"faster by {t['single'] / t['clusters']:.3f}x")


if __name__ == "__main__":
    main()
