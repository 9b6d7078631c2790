"""fuser's tf32 and bf16 modes on W2 (1024 x 8192 x 8192, its whole epilogue)
against cuBLAS's GEMM alone, interleaved: issue #17 asks tf32 >= 1.0x cuBLAS's
TF32 GEMM and bf16 >= 0.95x cuBLAS's bf16 GEMM. cuBLAS is timed three ways
(torch.mm(x, W.T), F.linear without and with the bias) and the fastest is
the reference, so a slow cuBLAS call cannot flatter fuser. Each kernel's
max |error| against float64 is printed beside it.

    PYTHONPATH=build-gpu/python_packages FUSER_ARTIFACTS=.artifacts python3 bench/experiments/tensor_core_modes.py [--rounds R]
"""

import argparse
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import load, time_interleaved  # noqa: E402

MODES = {"tf32": (torch.float32, "mma_w2_tf32"), "bf16": (torch.bfloat16, "mma_w2_bf16")}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = True
    lin = torch.nn.Linear(8192, 8192, device="cuda")
    x32 = torch.rand(1024, 8192, device="cuda")
    flops = 2 * 1024 * 8192 * 8192
    for mode, (dtype, stem) in MODES.items():
        x, w, b = (t.detach().to(dtype) for t in (x32, lin.weight, lin.bias))
        out = torch.full((1024, 8192), float("nan"), device="cuda", dtype=dtype)
        mod = load(stem)
        with torch.no_grad():
            exact = F.leaky_relu((x.double() @ w.double().T + b.double()) * 2.0, 0.1)
            mod.forward(x, w, b, out=out)
            err = float((out.double() - exact).abs().max())
            eager_err = float((F.leaky_relu(F.linear(x, w, b) * 2.0, 0.1).double() - exact)
                              .abs().max())
            fns = {"cuBLAS torch.mm(x, W.T)": lambda: torch.mm(x, w.T),
                   "cuBLAS F.linear(x, W)": lambda: F.linear(x, w),
                   "cuBLAS F.linear(x, W, b)": lambda: F.linear(x, w, b),
                   f"fuser {stem} (whole W2)": lambda: mod.forward(x, w, b, out=out)}
            res = time_interleaved(fns, args.iters, rounds=args.rounds)
        best = min(v["median_ms"] for k, v in res.items() if k.startswith("cuBLAS"))
        for k, v in res.items():
            ms = v["median_ms"]
            print(f"[{mode}] {k:32s} {ms:.4f} ms {flops / ms / 1e9:6.1f} TFLOP/s "
                  f"vs best cuBLAS {best / ms:.3f}x  rounds {[round(t, 4) for t in v['round_medians_ms']]}")
        print(f"[{mode}] max |error| vs float64: fuser {err:.2e}, eager {eager_err:.2e}")


if __name__ == "__main__":
    main()
