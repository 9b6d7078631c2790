"""The users' training check at the seeds' real sizes: 3 SGD steps of
forward, mse_loss against a target, backward, with fuser's training
package (scripts/build-torch-artifacts.py) and with eager PyTorch from the
same weights, data `torch.rand` without grad; losses and parameters
compared after every step by torch.allclose(eager, fuser) at the users'
tolerance (1e-4 in fp32; 1e-2 under torch.autocast("cuda", bfloat16), the
forward and loss in the context). Prints the max differences.

Usage (on the GPU host, after bench/gpu-check.sh built the runtime):
  PYTHONPATH=$PWD/build-gpu/python_packages FUSER_ARTIFACTS=$PWD/.artifacts \\
      python3 bench/training_steps_check.py [--names w2 w3] [--steps 3]
"""

import argparse
import contextlib
import copy
import json
import sys
from pathlib import Path

import torch

import fuser.torch as ft

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))
import bench  # noqa: E402
import torch_models  # noqa: E402


def run(model, steps, xs, targets, autocast):
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for step in range(steps):
        opt.zero_grad(set_to_none=True)
        with (torch.autocast("cuda", dtype=torch.bfloat16) if autocast
              else contextlib.nullcontext()):
            loss = torch.nn.functional.mse_loss(model(xs[step]), targets[step])
        loss.backward()
        opt.step()
        losses.append(loss.detach().float())
    return losses, [p.detach().clone() for p in model.parameters()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--names", nargs="+", default=["w2", "w3"])
    ap.add_argument("--steps", type=int, default=3)
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    index = json.loads((bench.ARTIFACTS / "torch" / "index.json").read_text())
    failed = False
    for name in args.names:
        entry = index["training"][name]
        for autocast in (False, True):
            if autocast and not any("autocast" in v for v in entry["kernels"]):
                continue
            tol = 1e-2 if autocast else 1e-4
            torch.manual_seed(0)
            model = torch_models.problem(entry["seed"]).Model(*entry["init"]).cuda()
            eager = copy.deepcopy(model)
            fused = ft.load(bench.ARTIFACTS / "torch" / "training" / f"{name}.fuser",
                            module=model)
            g = torch.Generator(device="cuda").manual_seed(1234)
            xs = [torch.rand(entry["shape"], device="cuda", generator=g)
                  for _ in range(args.steps)]
            with torch.no_grad():
                shape = eager(xs[0]).shape
            targets = [torch.randn(shape, device="cuda", generator=g)
                       for _ in range(args.steps)]
            lf, pf = run(fused, args.steps, xs, targets, autocast)
            le, pe = run(eager, args.steps, xs, targets, autocast)
            ok = all(torch.allclose(b, a, atol=tol, rtol=tol) for a, b in zip(lf, le))
            ok &= all(torch.allclose(b, a, atol=tol, rtol=tol) for a, b in zip(pf, pe))
            loss_diff = max(float((a - b).abs()) for a, b in zip(lf, le))
            param_diff = max(float((a - b).abs().max()) for a, b in zip(pf, pe))
            label = "autocast bf16" if autocast else "fp32"
            print(f"[training steps] {name} {label}: {args.steps} SGD steps, losses "
                  f"{[round(float(v), 6) for v in lf]} (eager "
                  f"{[round(float(v), 6) for v in le]}); max |loss diff| "
                  f"{loss_diff:.3e}, max |parameter diff| {param_diff:.3e}; "
                  f"allclose at {tol:g}: {ok}")
            failed |= not ok
            del model, eager, fused, xs, targets, pf, pe
            torch.cuda.empty_cache()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
