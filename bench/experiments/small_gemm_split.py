"""Split K on small products, where the output fills a few blocks of the
wave: Linear(1024 -> 512) at batch 128 with an epilogue (x 2, leaky_relu;
4 output tiles of 128 x 128 for 132 SMs, K = 1024) and Linear(4096 ->
1024) at batch 64, compiled with split-k = 1 (none), 2, 4, 8 and 16, timed
by the users' rule against eager PyTorch. Where MatmulSplitK.cpp's slice
floor should sit for K under 2048.

Where torch-mlir is (it compiles the packages into .artifacts/experiments):
    PYTHONPATH=build/python_packages .venv/bin/python \\
        bench/experiments/small_gemm_split.py --build
On the GPU machine:
    FUSER_ARTIFACTS=.artifacts python3 bench/experiments/small_gemm_split.py
"""

import argparse
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))
from bench import ARTIFACTS, time_interleaved  # noqa: E402
import torch_models  # noqa: E402

OUT = ARTIFACTS / "experiments" / "small_gemm_split"
SPLITS = (1, 2, 4, 8, 16)
# name -> (constructor args of torch_models.LinearLeaky, input shape)
SHAPES = {"128x1024x512": ((1024, 512, 0.01), (128, 1024)),
          "64x4096x1024": ((4096, 1024, 0.01), (64, 4096))}


def model(args):
    torch.manual_seed(0)
    return torch_models.LinearLeaky(*args)


def build():
    import fuser.torch as ft
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (args, shape) in SHAPES.items():
        for split in SPLITS:
            c = ft.compile(model(args), torch.empty(shape), fallback=False,
                           report=False, options={"split-k": split})
            ft.save(c, OUT / f"{name}_split{split}.fuser")
            print(f"[split] {name} split-k {split}: {c.fuser_kernels}")


def run(iters, rounds):
    import fuser.torch as ft
    torch.backends.cuda.matmul.allow_tf32 = False
    for name, (args, shape) in SHAPES.items():
        m = model(args).cuda()
        x = torch.randn(shape, device="cuda")
        fns = {"eager": lambda: m(x)}
        with torch.no_grad():
            want = m(x)
            for split in SPLITS:
                c = ft.load(OUT / f"{name}_split{split}.fuser", module=m)
                err = (c(x) - want).abs().max().item()
                print(f"[split] {name} split-k {split}: max abs error {err:.2e}")
                fns[f"split-k {split}"] = lambda c=c: c(x)
            res = time_interleaved(fns, iters, rounds)
        eager = res["eager"]["mean_ms"]
        for label, r in res.items():
            print(f"[split] {name} {label:12s} mean {r['mean_ms'] * 1e3:7.1f} us "
                  f"({eager / r['mean_ms']:.2f}x eager)")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", action="store_true")
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    build() if args.build else run(args.iters, args.rounds)


if __name__ == "__main__":
    main()
