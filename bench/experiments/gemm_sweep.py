"""Tile shapes and split K of fp32 x * W^T against wave quantization: each
.artifacts/gemmsweep/<class>__<variant> (scripts/build-gemm-sweep.sh) timed
interleaved with cuBLAS SGEMM (torch.mm, TF32 off) on the same inputs, after
checking its max error against float64 beside SGEMM's. Needs only torch and
fuser's runtime.

    FUSER_ARTIFACTS=.artifacts python3 bench/experiments/gemm_sweep.py [--iters N] [--rounds R]
"""

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, load, time_interleaved  # noqa: E402

SHAPES = {"linear_odd": (1000, 3000, 1000), "large_k": (256, 256, 131072),
          "square": (4096, 4096, 4096)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(0)
    variants = defaultdict(list)
    for ptx in sorted((ARTIFACTS / "gemmsweep").glob("*.ptx")):
        cls, name = ptx.stem.split("__")
        variants[cls].append(name)
    for cls, names in variants.items():
        m, n, k = SHAPES[cls]
        x = (torch.rand(m, k, device="cuda", generator=gen) * 2 - 1)
        w = (torch.rand(n, k, device="cuda", generator=gen) * 2 - 1) / math.sqrt(k)
        ref = x.double() @ w.double().T
        sgemm_err = float(((x @ w.T).double() - ref).abs().max())
        fns = {"cuBLAS": lambda: x @ w.T}
        errs = {}
        for name in names:
            mod = load(f"gemmsweep/{cls}__{name}")
            out = torch.full((m, n), float("nan"), device="cuda")
            mod.forward(x, w, out=out)
            errs[name] = float((out.double() - ref).abs().max())
            fns[name] = lambda mod=mod, out=out: mod.forward(x, w, out=out)
        res = time_interleaved(fns, args.iters, args.rounds)
        base = res["cuBLAS"]["median_ms"]
        print(f"[gemm sweep] {cls} {m}x{n}x{k}: cuBLAS {base:.4f} ms, max err {sgemm_err:.2e}")
        for name in names:
            t = res[name]["median_ms"]
            print(f"[gemm sweep]   {name:14s} {t:.4f} ms  {base / t:.2f}x cuBLAS  "
                  f"{2 * m * n * k / t / 1e9:.1f} TFLOP/s  max err {errs[name]:.2e}")
        del x, w, ref, fns
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
