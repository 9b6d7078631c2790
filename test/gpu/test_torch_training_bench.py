"""Training-step timings of the seed models at their real sizes (issue 14's
bench figure), printed, not asserted: fuser's training package (forward and
backward kernels, .artifacts/torch/training/w{1,2,3}.fuser) against PyTorch
eager and torch.compile (inductor, default mode), in the same run, fp32 (no
TF32).

One step = forward + backward with a fixed output gradient
(`y.backward(r)`), parameters' .grad set to None before each. Timing as the
users' harness times a forward (WORKLOADS.md): CUDA events on the current
stream around one step, after a 256 MB write that flushes the L2 cache; 3
warm-up steps, then STEPS timed ones; the mean is reported.

Run alone (it takes a minute):  python -m pytest -q -s test/gpu/test_torch_training_bench.py
"""

import copy
import json
import sys
from pathlib import Path

import pytest
import torch

import fuser.torch as ft
from gpu_util import ARTIFACTS

ROOT = Path(__file__).resolve().parents[2]
INDEX = ARTIFACTS / "torch" / "index.json"
STEPS = 20
WARMUP = 3

if not INDEX.exists() or "training" not in json.loads(INDEX.read_text()):
    pytest.skip("no training packages: run scripts/build-torch-artifacts.py "
                "(--only-training) where torch-mlir is",
                allow_module_level=True)

TRAINING = json.loads(INDEX.read_text())["training"]


def problem(seed):
    sys.path.insert(0, str(Path(__file__).parent / "Inputs"))
    import torch_models
    return torch_models.problem(seed)


def time_steps(step, params):
    flush = torch.empty(64 << 20, dtype=torch.float32, device="cuda")
    for _ in range(WARMUP):
        for p in params:
            p.grad = None
        step()
    torch.cuda.synchronize()
    total = 0.0
    for _ in range(STEPS):
        for p in params:
            p.grad = None
        flush.fill_(1.0)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        end.synchronize()
        total += start.elapsed_time(end)
    return total / STEPS


@pytest.mark.parametrize("name", [n for n in ("w1", "w2", "w3",
                                            "w2_params_only", "w3_params_only")
                                  if n in TRAINING])
def test_training_step_timings(name):
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        entry = TRAINING[name]
        torch.manual_seed(0)
        model = problem(entry["seed"]).Model(*entry["init"]).cuda()
        fused = ft.load(ARTIFACTS / "torch" / "training" / f"{name}.fuser",
                        module=model)
        eager = copy.deepcopy(model)
        # Every implementation does the package's work: with input_grads
        # (the default) fuser's backward computes dL/dx whether or not x
        # asks for it, so x requires grad for all; a package compiled with
        # input_grads=False (a data input) computes parameter gradients
        # only, and x does not.
        x = torch.rand(entry["shape"], device="cuda").requires_grad_(
            entry.get("input_grads", True))
        with torch.no_grad():
            r = torch.randn_like(model(x))
        results = {}
        nets = {"fuser": fused, "eager": eager}
        try:
            nets["torch.compile"] = torch.compile(copy.deepcopy(model))
        except Exception as e:  # noqa: BLE001
            results["torch.compile"] = f"n/a ({type(e).__name__})"
        for label, net in nets.items():
            params = list(net.parameters()) + [x] * x.requires_grad

            def step(net=net):
                net(x).backward(r)
            try:
                results[label] = time_steps(step, params)
            except Exception as e:  # noqa: BLE001 - inductor may be absent.
                results[label] = f"n/a ({type(e).__name__}: {e})"[:120]
        kernels = {v: len(k) for v, k in fused.fuser_kernels.items()}
        line = ", ".join(
            f"{k} {v:.3f} ms" if isinstance(v, float) else f"{k} {v}"
            for k, v in results.items())
        speedups = ""
        if isinstance(results.get("fuser"), float):
            speedups = "; fuser speedup " + ", ".join(
                f"{results[k] / results['fuser']:.3f}x vs {k}"
                for k in ("eager", "torch.compile")
                if isinstance(results.get(k), float))
        print(f"\n[gpu bench] training step {name} {entry['shape']} "
              f"(kernels {kernels}): {line}{speedups}")
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
        torch.cuda.empty_cache()
