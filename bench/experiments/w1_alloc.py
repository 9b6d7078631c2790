"""W1 (LeakyReLU, 4096 x 393216) through fuser's kernel with and without a
fresh output, interleaved with eager: into one preallocated `out=`, into a
second preallocated buffer, allocating (the call makes the output, as the
ModelNew does), torch.empty_like then `out=`, and eager writing into `out=`.
Separates what the allocation costs on the GPU from which buffer is written
(issue #13: the kernel alone is ~1% faster than eager, the allocating call
less).

    PYTHONPATH=build-gpu/python_packages FUSER_ARTIFACTS=.artifacts python3 bench/experiments/w1_alloc.py [--rounds R]
"""

import argparse
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import load, time_interleaved  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--rounds", type=int, default=4)
    args = p.parse_args()
    mod = load("w1_leaky_relu_static")
    x = torch.randn(4096, 393216, device="cuda")
    out, out2 = torch.empty_like(x), torch.empty_like(x)
    fns = {
        "eager": lambda: F.leaky_relu(x, 0.01),
        "fuser out=": lambda: mod.forward(x, out=out),
        "fuser out= (second buffer)": lambda: mod.forward(x, out=out2),
        "fuser allocating": lambda: mod.forward(x),
        "fuser empty_like + out=": lambda: mod.forward(x, out=torch.empty_like(x)),
        "eager into out=": lambda: torch.ops.aten.leaky_relu.out(x, 0.01, out=out),
    }
    res = time_interleaved(fns, args.iters, rounds=args.rounds)
    e = res["eager"]["median_ms"]
    for k, v in res.items():
        print(f"[w1 alloc] {k:28s} {v['median_ms']:.4f} ms  vs eager {e / v['median_ms']:.4f}x"
              f"  rounds {[round(t, 4) for t in v['round_medians_ms']]}")


if __name__ == "__main__":
    main()
