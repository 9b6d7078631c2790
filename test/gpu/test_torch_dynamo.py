"""torch.compile(model, backend="fuser") training on the GPU, where nothing
compiles: the graphs load from the graph packages that
scripts/build-torch-artifacts.py wrote into .artifacts/torch/dynamo
(FUSER_CACHE_DIR), compiled where torch-mlir is.

W2 and W3, small (batch 7, 40 -> 24) and real sizes: 3 steps of forward,
MSE loss, backward and SGD with data that does not require grad (the pair
without dL/dx), then one with x requiring grad (the pair with it), against
the same steps in eager PyTorch: losses, parameters and dL/dx at atol =
rtol = 1e-4 (real sizes: at least as close to a float64 run as eager's,
test_torch_training.as_accurate_as_eager). Every graph must come from a
package: the machine has no torch-mlir.
"""

import copy
import json
import sys
import warnings
from pathlib import Path

import pytest
import torch
import torch._dynamo

from test_torch_training import (INDEX, REAL, TORCH_ARTIFACTS,
                                 as_accurate_as_eager, check, problem)

sys.path.insert(0, str(Path(__file__).parent / "Inputs"))
import model_blocks  # noqa: E402
import torch_models  # noqa: E402

DYNAMO = json.loads(INDEX.read_text()).get("dynamo", {})
STEPS = 3
LR = 0.05

pytestmark = pytest.mark.usefixtures("fp32_reference")


def steps(net, xs, targets, dx_last, seed=None):
    """SGD steps on `net` (MSE against each target); the last one with x
    requiring grad when `dx_last`; PyTorch's generator seeded with seed + i
    before step i when `seed` is given (the same dropout masks for each
    net). Returns the losses, the parameters after the last step and the
    last step's dL/dx."""
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    losses, dx = [], None
    for i, (x, t) in enumerate(zip(xs, targets)):
        if seed is not None:
            torch.manual_seed(seed + i)
        x = x.clone().requires_grad_(dx_last and i == len(xs) - 1)
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(net(x), t)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
        dx = x.grad
    return losses, [p.detach().clone() for p in net.parameters()], dx


def dynamo_packages(name, monkeypatch):
    """fuser.torch.dynamo, its records cleared, with the graph cache at the
    packages of `name` (skips where they were not built)."""
    if name not in DYNAMO:
        pytest.skip(f"no dynamo graph packages for {name}: run "
                    "scripts/build-torch-artifacts.py where torch-mlir is")
    import fuser.torch.dynamo as fd

    monkeypatch.setenv("FUSER_CACHE_DIR", str(TORCH_ARTIFACTS / "dynamo"))
    torch._dynamo.reset()
    fd.COMPILED.clear()
    return fd


def through_fuser(model):
    """torch.compile with fuser's backend, static shapes, no eager
    fallback: every graph must load from its package."""
    return torch.compile(model, backend="fuser", dynamic=False,
                         options={"fallback": False})


@pytest.mark.parametrize("name", ["w2_small", "w3_small", "w2", "w3"])
def test_dynamo_training_matches_eager(name, monkeypatch):
    fd = dynamo_packages(name, monkeypatch)
    entry = DYNAMO[name]
    torch.manual_seed(0)
    model = problem(entry["seed"]).Model(*entry["init"]).cuda()
    nets = {"eager": copy.deepcopy(model)}
    if name in REAL:
        nets["float64"] = copy.deepcopy(model).double()
    nets["fuser"] = through_fuser(model)
    g = torch.Generator(device="cuda")
    g.manual_seed(99)
    xs = [torch.rand(entry["shape"], device="cuda", generator=g)
          for _ in range(STEPS + 1)]
    with torch.no_grad():
        shape = model(xs[0]).shape
    targets = [torch.randn(shape, device="cuda", generator=g)
               for _ in xs]
    runs = {}
    for label, net in nets.items():
        if label == "float64":
            runs[label] = steps(net, [x.double() for x in xs],
                                [t.double() for t in targets], True)
        else:
            runs[label] = steps(net, xs, targets, True)
    assert [r["kind"] for r in fd.COMPILED] == ["training", "training"]
    assert all(r["loaded"] and r["eager"] is None for r in fd.COMPILED), \
        [r["eager"] for r in fd.COMPILED]
    (lf, pf, dxf), (le, pe, dxe) = runs["fuser"], runs["eager"]
    values = [(f"loss {i}", a, b) for i, (a, b) in enumerate(zip(lf, le))]
    values += [(f"parameter {i}", a, b) for i, (a, b) in enumerate(zip(pf,
                                                                       pe))]
    values.append(("dL/dx of the last step", dxf, dxe))
    worst = 0.0
    for i, (label, a, b) in enumerate(values):
        tag = f"dynamo {name}: {label}"
        if name in REAL:
            l64, p64, dx64 = runs["float64"]
            exact = (l64 + p64 + [dx64])[i]
            worst = max(worst, as_accurate_as_eager(tag, a, b, exact))
        else:
            worst = max(worst, check(tag, a, b))
    kernels = [{v: len(k) for v, k in r["kernels"].items()}
               for r in fd.COMPILED]
    print(f"[gpu tests] dynamo {name}: graphs {kernels}; {STEPS} steps "
          f"without dL/dx, 1 with; max abs error "
          f"{'vs float64' if name in REAL else 'vs eager'} {worst:.3e}")
    torch._dynamo.reset()


def test_dynamo_split_training_matches_eager(monkeypatch):
    """A dropout in training mode splits the graph: fuser's runs on either
    side load from their packages, the dropout draws from PyTorch's
    generator, and 3 SGD steps equal eager's with the same seeds."""
    name = "dropout_mlp"
    fd = dynamo_packages(name, monkeypatch)
    model = torch_models.build_split(name, device="cuda")
    nets = {"eager": copy.deepcopy(model), "fuser": through_fuser(model)}
    g = torch.Generator(device="cuda")
    g.manual_seed(7)
    shape = DYNAMO[name]["shape"]
    xs = [torch.randn(shape, device="cuda", generator=g) for _ in range(STEPS)]
    targets = [torch.randn(shape[0], 24, device="cuda", generator=g)
               for _ in range(STEPS)]
    runs = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # The split's.
        for label, net in nets.items():
            losses, params, _ = steps(net, xs, targets, False, seed=100)
            runs[label] = losses + params
    split = [r for r in fd.COMPILED if r["kind"] == "split"]
    parts = [r for r in fd.COMPILED if r["kind"] != "split"]
    assert len(split) == 1 and split[0]["fuser_parts"] == 2, fd.COMPILED
    assert "dropout" in split[0]["pytorch"][0]
    assert len(parts) == 2 and all(
        r["kind"] == "training" and r["loaded"] and r["eager"] is None
        for r in parts), parts
    worst = max(check(f"dynamo split {name}: value {i}", a, b)
                for i, (a, b) in enumerate(zip(runs["fuser"], runs["eager"])))
    print(f"[gpu tests] dynamo {name}: split at the dropout, parts "
          f"{[{v: len(k) for v, k in r['kernels'].items()} for r in parts]}; "
          f"{STEPS} SGD steps, max abs error vs eager {worst:.3e}")
    torch._dynamo.reset()


@pytest.mark.parametrize("name", model_blocks.partitioned_small())
def test_partitioned_conv_blocks_train_like_eager(name, monkeypatch):
    """timm's ConvNeXt and ResNet blocks as fuser.torch.compile partitions
    them (convolutions in PyTorch, cuDNN's; in train mode BatchNorm's batch
    statistics too), their graphs loaded through torch.compile(backend=
    "fuser"): one training step against eager: output, parameter gradients
    and running statistics at atol = rtol = 1e-4."""
    if not model_blocks.available():
        pytest.skip("needs timm")
    fd = dynamo_packages(name, monkeypatch)
    model = model_blocks.build(name, device="cuda").train()
    ref = copy.deepcopy(model)
    net = through_fuser(model)
    x = torch.randn(model_blocks.shape(name), device="cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # The split's.
        y = net(x)
    y2 = ref(x)
    values = [("output", y.detach(), y2.detach())]
    y.square().sum().backward()
    y2.square().sum().backward()
    values += [(f"grad {n}", p.grad, q.grad) for (n, p), q in
               zip(model.named_parameters(), ref.parameters())]
    values += [(f"buffer {n}", b.float(), r.float()) for (n, b), r in
               zip(model.named_buffers(), ref.buffers())]
    parts = [r for r in fd.COMPILED if r["kind"] != "split"]
    if any(isinstance(m, torch.nn.BatchNorm2d) for m in model.modules()):
        # BatchNorm's batch statistics stay in PyTorch (cuDNN), and so do
        # the ReLU and the residual add between them: nothing for fuser.
        assert parts == [], parts
    else:
        assert parts and all(r["kind"] == "training" and r["loaded"] and
                             r["eager"] is None for r in parts), parts
    worst = max(check(f"partitioned {name}: {label}", a, b)
                for label, a, b in values)
    print(f"[gpu tests] partitioned {name}: graphs "
          f"{[{v: len(k) for v, k in r['kernels'].items()} for r in parts]}; "
          f"max abs error vs eager {worst:.3e}")
    torch._dynamo.reset()
