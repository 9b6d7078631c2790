"""The matrix-vector class (x * W^T with N = 1: 8192 x 1 x 8192) through
tensor-core tiles narrowed to N = 8, against the default configuration and
cuBLAS (torch.mm), interleaved. Variants are built where MLIR is into
.artifacts/gemv/mv_<precision>_<BM>_<BN>_<BK>_<WM>_<WN>_<STAGES>
(fuser-configure-kernels{tile-sizes=...}); errors against float64.

    FUSER_ARTIFACTS=.artifacts python3 bench/experiments/gemv_tiles.py [--iters N] [--rounds R]
"""

import argparse
import json
import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, load, time_interleaved  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cuda").manual_seed(0)
    m, k = 8192, 8192
    x = torch.rand(m, k, device="cuda", generator=g) * 2 - 1
    w = (torch.rand(1, k, device="cuda", generator=g) * 2 - 1) / math.sqrt(k)
    ref = x.double() @ w.double().T
    out = torch.full((m, 1), float("nan"), device="cuda")
    fns = {"cuBLAS torch.mm": lambda: torch.mm(x, w.T)}
    errors = {"cuBLAS torch.mm": float((torch.mm(x, w.T).double() - ref).abs().max())}
    stems = ["gemm_matvec"] + [f"gemv/{p.stem}" for p in sorted((ARTIFACTS / "gemv").glob("*.ptx"))]
    for stem in stems:
        mod = load(stem)
        mod.forward(x, w, out=out)
        errors[stem] = float((out.double() - ref).abs().max())
        fns[stem] = lambda mod=mod: mod.forward(x, w, out=out)
    res = time_interleaved(fns, args.iters, args.rounds)
    base = res["cuBLAS torch.mm"]["median_ms"]
    for name, v in sorted(res.items(), key=lambda kv: kv[1]["median_ms"]):
        print(f"[gemv] {name:34s} {v['median_ms']:.4f} ms  {m * k * 4 / v['median_ms'] / 1e6:.0f} GB/s"
              f"  vs cuBLAS {base / v['median_ms']:.3f}x  max err {errors[name]:.2e}")
    if args.out:
        args.out.write_text(json.dumps({"times": res, "errors": errors}, indent=2))


if __name__ == "__main__":
    main()
