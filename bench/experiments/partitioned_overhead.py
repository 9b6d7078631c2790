"""Where a partitioned block's host time per call goes (timm's ResNet
BasicBlock: its convolutions in PyTorch, BatchNorm + ReLU through fuser's
graphs, loaded from bench/real_models.py's graph cache): the median host
time of one call, the GPU idle before it (bench/host_overhead.py's
host_us), for eager, torch.compile(backend="eager") (dynamo and the graph
alone), the fuser backend, and each fuser graph called alone; then a
cProfile of the fuser backend's calls.

    PYTHONPATH=build-gpu/python_packages FUSER_ARTIFACTS=.artifacts \\
        python3 bench/experiments/partitioned_overhead.py [--model NAME]
"""

import argparse
import cProfile
import io
import pstats
import sys
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))
import memory_bound  # noqa: E402
import model_blocks  # noqa: E402
from bench import ARTIFACTS  # noqa: E402
from host_overhead import host_us  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="timm_resnet_basic_block_base")
    p.add_argument("--calls", type=int, default=1000)
    args = p.parse_args()
    warnings.filterwarnings("ignore")
    import fuser.torch.dynamo as fd

    torch.manual_seed(0)
    model = model_blocks.build(args.model, seed=None).cuda()
    x = torch.randn(model_blocks.shape(args.model), device="cuda")
    fd.COMPILED.clear()
    fused = memory_bound.load_partitioned(
        model, ARTIFACTS / "real_models" / f"{args.model}.graphs")
    dynamo = torch.compile(model, backend="eager", dynamic=False)
    with torch.no_grad():
        fused(x)
        dynamo(x)
        parts = [r["module"] for r in fd.COMPILED if "module" in r]
        # Each graph's arguments, as the split passes them (the same shapes).
        inputs = []
        for m in parts:
            v = m.fuser_package.variants[0]
            inputs.append([torch.randn([d or 1 for d in s], device="cuda")
                           for _, s in v.arg_specs])
        layers = {"eager": lambda: model(x),
                  "torch.compile(backend='eager')": lambda: dynamo(x),
                  "fuser backend": lambda: fused(x)}
        for i, (m, ts) in enumerate(zip(parts, inputs)):
            layers[f"fuser graph {i} alone ({len(m.fuser_package.variants[0].kernels)} "
                   f"kernel(s))"] = (lambda m=m, ts=ts: m(*ts))
        for name, fn in layers.items():
            print(f"[overhead] {name:40s} {host_us(fn, args.calls):7.2f} us")
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.calls):
            fused(x)
        prof.disable()
    torch.cuda.synchronize()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(25)
    print(out.getvalue())


if __name__ == "__main__":
    main()
