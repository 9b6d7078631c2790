"""GPU time of the one-kernel host models' kernels, fuser's against eager
PyTorch's, under Nsight Compute (each kernel alone, caches flushed, base
clocks): whether a difference in the users' timing of these small models
is the kernel's or the launch's.

    ncu --metrics gpu__time_duration.sum --csv python3 \\
        bench/experiments/small_kernel_ncu.py > ncu.csv
    python3 bench/experiments/small_kernel_ncu.py --summarize ncu.csv
"""

import argparse
import csv
import statistics
import sys
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))

MODELS = ("leaky_relu_16x16384", "gelu_16x16384", "sigmoid_16x16384")
CALLS = 5


def run():
    import torch
    import bench  # noqa: F401
    import fuser
    import fuser.torch as ft
    import torch_models

    warnings.filterwarnings("ignore")
    fuser.set_cuda_graphs("off")  # Kernels, not graph nodes, for ncu.
    for name in MODELS:
        model = torch_models.build_host(name, device="cuda")
        compiled = ft.load(bench.ARTIFACTS / "torch" / "host" / f"{name}.fuser",
                           module=model)
        x = torch.randn(torch_models.HOST[name][2], device="cuda")
        with torch.no_grad():
            for _ in range(CALLS):
                model(x)
            for _ in range(CALLS):
                compiled(x)
        torch.cuda.synchronize()


def summarize(path):
    times = defaultdict(list)
    with open(path) as f:
        rows = [r for r in csv.reader(l for l in f if l.startswith('"'))]
    header, body = rows[0], rows[1:]
    kernel, value = header.index("Kernel Name"), header.index("Metric Value")
    for r in body:
        times[r[kernel][:60]].append(float(r[value].replace(",", "")))
    for k, v in times.items():
        print(f"[ncu] {k:60s} {len(v):3d} kernels, median {statistics.median(v):8.0f} ns")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--summarize", type=Path)
    a = p.parse_args()
    summarize(a.summarize) if a.summarize else run()
