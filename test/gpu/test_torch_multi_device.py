"""One process, two GPUs: a loaded training package called on cuda:0 and,
moved with .to(), on cuda:1 (the runtime loads the kernels, constants and
workspaces per device and launches on each device's current stream), and
an elementwise training module (no parameters) called from two threads at
once, each on its own device and stream; each result against eager
PyTorch at atol = rtol = 1e-4. Skipped with fewer than 2 GPUs."""

import copy
import json
import threading

import pytest
import torch

import fuser.torch as ft
from gpu_util import ARTIFACTS

TORCH = ARTIFACTS / "torch"
INDEX = TORCH / "index.json"

if torch.cuda.device_count() < 2:
    pytest.skip("needs 2 GPUs (nvidia-h200-x2)", allow_module_level=True)
if not INDEX.exists() or "training" not in json.loads(INDEX.read_text()):
    pytest.skip("no training packages: run scripts/build-torch-artifacts.py",
                allow_module_level=True)

pytestmark = pytest.mark.usefixtures("fp32_reference")


def problem(seed):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent / "Inputs"))
    import torch_models
    return torch_models.problem(seed)


def step(net, x, target):
    net.zero_grad(set_to_none=True)
    x = x.clone().requires_grad_(True)
    y = net(x)
    torch.nn.functional.mse_loss(y, target).backward()
    return [y.detach(), x.grad] + [p.grad for p in net.parameters()]


@pytest.mark.parametrize("name", ["w2_small", "w3_small"])
def test_one_module_on_two_devices(name):
    entry = json.loads(INDEX.read_text())["training"][name]
    torch.manual_seed(0)
    model = problem(entry["seed"]).Model(*entry["init"]).to("cuda:0")
    fused = ft.load(TORCH / "training" / f"{name}.fuser", module=model)
    for device in ("cuda:0", "cuda:1", "cuda:0"):
        fused.to(device)
        eager = copy.deepcopy(model)
        x = torch.rand(entry["shape"], device=device)
        target = torch.randn(model(x).shape, device=device)
        for a, b in zip(step(fused, x, target), step(eager, x, target)):
            assert a.device == torch.device(device)
            torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)


def test_threads_on_two_devices():
    """W1's training package (no parameters), one thread per device, each
    on a stream of its own, 20 calls each, at the same time."""
    entry = json.loads(INDEX.read_text())["training"]["w1_small_dynamic"]
    model = problem(entry["seed"]).Model(*entry["init"])
    fused = ft.load(TORCH / "training" / "w1_small_dynamic.fuser", module=model)
    errors, worst = [], {}

    def work(device):
        try:
            stream = torch.cuda.Stream(device=device)
            with torch.cuda.device(device), torch.cuda.stream(stream):
                for i in range(20):
                    x = torch.randn(5 + i, 40, device=device)
                    r = torch.randn(5 + i, 40, device=device)
                    got = step(fused, x, r)
                    want = step(model, x, r)
                    for a, b in zip(got, want):
                        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)
                        worst[device] = max(worst.get(device, 0.0),
                                            float((a - b).abs().max()))
            stream.synchronize()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"{device}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=work, args=(d,))
               for d in ("cuda:0", "cuda:1")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    print(f"[gpu tests] two devices, two threads: max abs error {worst}")
