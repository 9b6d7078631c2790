"""Host time per call, where the kernel is negligible: W1 (LeakyReLU) on one
row (393216 elements) through eager PyTorch, fuser's hand-written dynamic
example (allocating, and into `out=`) and the generated ModelNew file's
dynamic-batch variant. Each is called --calls times back to back and the
wall time divided (the GPU keeps up, so this is the host's cost); then a
cProfile of the ModelNew calls shows where that time goes. On the users'
harness this host time overlaps the L2 flush before each timed call, so it
only shows where it exceeds that.

    PYTHONPATH=build-gpu/python_packages FUSER_ARTIFACTS=.artifacts python3 bench/experiments/call_overhead.py
"""

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import load, model_new  # noqa: E402


def per_call_us(fn, calls):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=2000)
    args = p.parse_args()
    x = torch.randn(1, 393216, device="cuda")
    out = torch.empty_like(x)
    mod = load("w1_leaky_relu_dynamic")
    new = model_new("w1").ModelNew().cuda()
    fns = {
        "eager F.leaky_relu": lambda: F.leaky_relu(x, 0.01),
        "fuser example (allocating)": lambda: mod.forward(x),
        "fuser example (out=)": lambda: mod.forward(x, out=out),
        "ModelNew": lambda: new(x),
        "torch.empty_like alone": lambda: torch.empty_like(x),
    }
    for name, fn in fns.items():
        print(f"[overhead] {name:28s} {per_call_us(fn, args.calls):7.1f} us per call")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.calls):
        new(x)
    prof.disable()
    torch.cuda.synchronize()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(14)
    print("\n".join("[overhead] " + line for line in s.getvalue().splitlines()
                    if line.strip()))


if __name__ == "__main__":
    main()
