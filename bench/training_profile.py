"""Where a training step's GPU time goes: the kernels of fuser's forward and
backward (the training packages of scripts/build-torch-artifacts.py) and of
eager PyTorch, from torch.profiler (CUPTI sees the kernels fuser's runtime
launches through the driver API too). The step is L = sum(y * r), backward
(the same gradients as bench/suite.py's training cases, which time
y.backward(r)); each kernel's total over --steps steps is printed, divided
by the step count.

Usage (on the GPU host, after bench/gpu-check.sh has built the runtime):
  PYTHONPATH=$PWD/build-gpu/python_packages FUSER_ARTIFACTS=$PWD/.artifacts \\
      python3 bench/training_profile.py [--names w2 w3] [--dx] [--steps 5]

x does not require grad (parameter gradients only, the usual step) unless
--dx is given. --autocast runs the forward under torch.autocast("cuda",
bfloat16) (the packages' autocast pairs).
"""

import argparse
import contextlib
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from bench import kernel_times  # noqa: E402
from training_grad_accuracy import artifacts, build  # noqa: E402


def show(title, times, limit, ours=None):
    """`ours`: fuser's kernel names, whose share of the step's kernel time
    is printed (the rest is PyTorch's: gradient accumulation, say)."""
    total = sum(us for _, us in times.values())
    launches = sum(n for n, _ in times.values())
    share = ""
    if ours is not None and total:
        fused = sum(us for name, (_, us) in times.items() if name in ours)
        share = f", {fused / total:.1%} of it in fuser's kernels"
    print(f"\n[profile] {title}: {total / 1000:.3f} ms of kernels per step, "
          f"{launches:.0f} launches{share}")
    for name, (n, us) in sorted(times.items(), key=lambda kv: -kv[1][1])[:limit]:
        print(f"[profile]   {us:9.1f} us {us / total * 100:5.1f}%  x{n:<3.0f} {name[:90]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--names", nargs="+", default=["w2", "w3"])
    ap.add_argument("--dx", action="store_true", help="x requires grad (dL/dx too)")
    ap.add_argument("--autocast", action="store_true",
                    help="the forward under torch.autocast(\"cuda\", bfloat16)")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--limit", type=int, default=40)
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    training = json.loads((artifacts() / "torch" / "index.json").read_text())["training"]
    for name in args.names:
        entry = training[name]
        model, compiled = build(name, entry, "cuda")
        x = torch.rand(list(entry["shape"]), device="cuda")
        x.requires_grad_(args.dx)
        r = torch.randn_like(model(x))

        def step(m):
            for p in model.parameters():
                p.grad = None
            x.grad = None
            with (torch.autocast("cuda", dtype=torch.bfloat16) if args.autocast
                  else contextlib.nullcontext()):
                y = m(x)
            (y.float() * r).sum().backward()

        ours = {k for ks in compiled.fuser_kernels.values() for k in ks}
        show(f"{name} fuser", kernel_times(lambda: step(compiled), args.steps), args.limit,
             ours)
        show(f"{name} eager", kernel_times(lambda: step(model), args.steps), args.limit)
        del model, compiled, x, r
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
