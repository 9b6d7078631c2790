"""What fuser's tf32 and bf16 GEMMs cost per output tile, against cuBLAS.

Kernel times alone (CUPTI through torch.profiler, no host overhead) of
x * W^T + b (N = 8192, dynamic M; .artifacts/tile_cost_<precision>_k<K>
from scripts/build-mma-artifacts.sh) and of F.linear on the same inputs,
over M (1 to 8 output tiles of 128 x 256 per SM on 132 SMs) and K. A
difference that grows with M but not with K is a per-tile cost: on an
H100 (2026-11-25) the main loop ran at cuBLAS's rate, with 9-20 us more
per tile (bench/results/H100-2026-11-25-promotion-from-k.md).

    PYTHONPATH=build-gpu/python_packages FUSER_ARTIFACTS=.artifacts python3 bench/experiments/tile_cost.py
"""

import argparse
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, kernel_times, load  # noqa: E402


def kernel_us(fn, iters):
    """Mean device time of the kernels `fn` launches (memsets aside), us."""
    return sum(us for name, (_, us) in kernel_times(fn, iters).items()
               if "emset" not in name)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--k", type=int, nargs="+", default=[1024, 4096, 8192])
    p.add_argument("--m", type=int, nargs="+", default=[512, 1024, 2048, 4096])
    p.add_argument("--iters", type=int, default=20)
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    g = torch.Generator(device="cuda").manual_seed(0)
    print("| precision | K | M | fuser us | cuBLAS us | gap us | cuBLAS / fuser |")
    print("|---|---|---|---|---|---|---|")
    for prec, dtype in [("tf32", torch.float32), ("bf16", torch.bfloat16)]:
        for k in args.k:
            stem = f"tile_cost_{prec}_k{k}"
            if not (ARTIFACTS / f"{stem}.ptx").exists():
                sys.exit(f"{stem} missing: run scripts/build-gpu-artifacts.sh")
            mod = load(stem)
            w = ((torch.rand(8192, k, device="cuda", generator=g) * 2 - 1) / k**0.5).to(dtype)
            b = (torch.rand(8192, device="cuda", generator=g) * 0.1).to(dtype)
            for m in args.m:
                x = (torch.rand(m, k, device="cuda", generator=g) * 2 - 1).to(dtype)
                out = torch.empty(m, 8192, device="cuda", dtype=dtype)
                ref = F.linear(x.float(), w.float(), b.float())
                mod.forward(x, w, b, out=out)
                err = float((out.float() - ref).abs().max())
                if not err < 0.1:
                    sys.exit(f"{stem} at M = {m}: max |error| {err:.3e}")
                ours = kernel_us(lambda: mod.forward(x, w, b, out=out), args.iters)
                theirs = kernel_us(lambda: F.linear(x, w, b), args.iters)
                print(f"| {prec} | {k} | {m} | {ours:.1f} | {theirs:.1f} | {ours - theirs:.1f} "
                      f"| {theirs / ours:.3f} |", flush=True)


if __name__ == "__main__":
    main()
