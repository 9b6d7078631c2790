"""fuser.torch training under torch.autocast("cuda", dtype=torch.bfloat16):
the training packages' autocast pairs (scripts/build-torch-artifacts.py
compiles them with fuser.torch.add_variant(..., autocast="bf16")), against
the same models run eagerly under the same autocast:

- the autocast pair runs (no eager fallback, no warning), its outputs have
  eager autocast's dtypes, and a call outside autocast runs the fp32 pair
  again on the same module;
- outputs and parameter gradients equal to eager autocast's at atol = rtol
  = 1e-2 (the users' rule for bf16; a gradient may miss it in at most 1e-4
  of its elements, near 0, if it is as close to a float64 run as eager's),
  with the max errors against float64 reported beside eager's own;
- 3 steps of forward (in the autocast context), MSE loss, backward and
  torch.optim.SGD: losses and parameters equal to eager autocast's at 1e-2
  after every step;
- a dynamic batch (sizes 1 and 3 besides the compiled one);
- float16 autocast with torch.amp.GradScaler (the packages with an f16
  pair): 3 steps equal to eager's at 1e-2.

Needs torch and fuser's runtime only.
"""

import copy
import json
import sys
import warnings
from pathlib import Path

import pytest
import torch

import fuser.torch as ft
from gpu_util import ARTIFACTS

TORCH_ARTIFACTS = ARTIFACTS / "torch"
INDEX = TORCH_ARTIFACTS / "index.json"
TOL = 1e-2
# Outputs nearer 0 than this carry no loss weight in the gradient test.
KINK = 1e-2
STEPS = 3
LR = 0.05

if not INDEX.exists() or "training" not in json.loads(INDEX.read_text()):
    pytest.skip(f"{TORCH_ARTIFACTS}/training missing: run "
                "scripts/build-torch-artifacts.py (--only-training) where "
                "torch-mlir is", allow_module_level=True)

TRAINING = json.loads(INDEX.read_text())["training"]


def has_autocast_pair(entry):
    return any("autocast" in v for v in entry["kernels"])


NAMES = sorted(n for n, e in TRAINING.items() if has_autocast_pair(e))
if not NAMES:
    pytest.skip("no training package has an autocast pair: rebuild the "
                "artifacts", allow_module_level=True)

pytestmark = pytest.mark.usefixtures("fp32_reference")


def autocast():
    return torch.autocast("cuda", dtype=torch.bfloat16)


@pytest.fixture(autouse=True)
def free_cached_memory():
    yield
    torch.cuda.empty_cache()


def build(name):
    entry = TRAINING[name]
    sys.path.insert(0, str(Path(__file__).parent / "Inputs"))
    import torch_models
    torch.manual_seed(0)
    model = torch_models.problem(entry["seed"]).Model(*entry["init"]).cuda()
    compiled = ft.load(TORCH_ARTIFACTS / "training" / f"{name}.fuser",
                       module=model)
    return model, compiled, entry


def check(what, new, ref):
    """torch.allclose(ref, new, atol=rtol=1e-2); returns the max abs error."""
    assert new.shape == ref.shape, f"{what}: shape {tuple(new.shape)}"
    assert new.dtype == ref.dtype, f"{what}: {new.dtype} != {ref.dtype}"
    a, b = new.detach().float(), ref.detach().float()
    err = float((a - b).abs().max()) if a.numel() else 0.0
    if not torch.allclose(b, a, atol=TOL, rtol=TOL):
        bad = int(((a - b).abs() > TOL + TOL * b.abs()).sum())
        pytest.fail(f"{what}: {bad} of {a.numel()} elements exceed "
                    f"atol=rtol={TOL} (max abs error {err:.3e})")
    return err


def check_gradient(what, new, ref, ref64):
    """A gradient equal to eager autocast's at 1e-2 (check), or, where a few
    elements miss, as accurate as eager's against float64. Gradients of
    sum(y * r) over a batch of 1024 reach ~600 while elements near 0 keep
    the absolute 1e-2: there the bf16 rounding of the two runs' inputs and
    sums (equal in distribution, ~0.2 against float64 in W3's dW) decides,
    and either run may be the closer one."""
    a, b = new.detach().float(), ref.detach().float()
    if torch.allclose(b, a, atol=TOL, rtol=TOL):
        return float((a - b).abs().max()) if a.numel() else 0.0
    misses = int(((a - b).abs() > TOL + TOL * b.abs()).sum())
    assert misses <= 1e-4 * a.numel(), \
        f"{what}: {misses} of {a.numel()} elements exceed atol=rtol={TOL}"
    e_new = (new.double() - ref64).abs()
    e_ref = (ref.double() - ref64).abs()
    print(f"{what}: {misses} elements off eager's at 1e-2; against float64 "
          f"max {float(e_new.max()):.3e} (eager {float(e_ref.max()):.3e}), "
          f"mean {float(e_new.mean()):.3e} (eager {float(e_ref.mean()):.3e})")
    assert float(e_new.max()) <= 1.25 * float(e_ref.max()) + 1e-6, what
    assert float(e_new.mean()) <= 1.1 * float(e_ref.mean()) + 1e-9, what
    return float((a - b).abs().max())


def forward_backward(net, x, r):
    """y (under autocast) and the parameters' gradients of sum(y * r)."""
    for p in net.parameters():
        p.grad = None
    with autocast():
        y = net(x)
    (y.float() * r).sum().backward()
    return y.detach(), [p.grad.detach().clone() for p in net.parameters()]


def batches(entry):
    b = entry["shape"][0]
    return [b, 1, 3] if entry["dynamic"] else [b]


@pytest.mark.parametrize("name", NAMES)
def test_gradients_match_eager_autocast(name):
    model, compiled, entry = build(name)
    eager = copy.deepcopy(model)
    ref64 = copy.deepcopy(model).double()
    g = torch.Generator(device="cuda")
    g.manual_seed(7)
    for batch in batches(entry):
        shape = [batch] + entry["shape"][1:]
        # Both signs: the activations' negative sides and the kinks.
        x = torch.rand(shape, device="cuda", generator=g) * 2 - 1
        with torch.no_grad(), autocast():
            out_shape = eager(x).shape
        r = torch.randn(out_shape, device="cuda", generator=g)
        # Away from leaky_relu's kink: an output within bf16 rounding of 0
        # may fall on either side of it in two correct runs, and its slope
        # (1 or the leak) then moves a whole row of dW.
        with torch.no_grad(), autocast():
            r = torch.where(eager(x).abs() < KINK, torch.zeros_like(r), r)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # No eager fallback.
            y, grads = forward_backward(compiled, x, r)
        y_e, grads_e = forward_backward(eager, x, r)
        for p in ref64.parameters():
            p.grad = None
        y64 = ref64(x.double())
        (y64 * r.double()).sum().backward()
        y64 = y64.detach()
        errs = [check(f"{name} batch {batch}: output", y, y_e)]
        for (pname, p64), gn, ge in zip(ref64.named_parameters(), grads,
                                        grads_e):
            errs.append(check_gradient(f"{name} batch {batch}: d{pname}",
                                       gn, ge, p64.grad))
        # Beside a float64 run: fuser's error no larger than a few times
        # eager autocast's own (both round to bf16 where autocast does).
        e_f = float((y.double() - y64).abs().max())
        e_e = float((y_e.double() - y64).abs().max())
        print(f"{name} batch {batch}: max error vs eager autocast "
              f"{max(errs):.3e}; output vs float64 fuser {e_f:.3e}, eager "
              f"{e_e:.3e}")
        assert e_f <= 4 * e_e + 1e-6, (e_f, e_e)
    # The same module outside autocast runs its fp32 pair again.
    x = torch.rand(entry["shape"], device="cuda")
    with torch.no_grad():
        out = compiled(x)
        ref = eager(x)
    assert out.dtype == ref.dtype == torch.float32
    assert torch.allclose(ref, out, atol=1e-4, rtol=1e-4)


def compare_sgd_steps(name, dtype, seed, scaled=False):
    """STEPS steps of SGD, forward and MSE loss under torch.autocast("cuda",
    dtype), by the package's pair (no eager fallback) and eagerly: losses
    and parameters equal at 1e-2. `scaled`: through torch.amp.GradScaler."""
    model, compiled, entry = build(name)
    eager = copy.deepcopy(model)
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    xs = [torch.rand(entry["shape"], device="cuda", generator=g)
          for _ in range(STEPS)]
    with torch.no_grad():
        out_shape = eager(xs[0]).shape
    targets = [torch.randn(out_shape, device="cuda", generator=g)
               for _ in range(STEPS)]
    runs = {}
    for label, net in (("fuser", compiled), ("eager", eager)):
        opt = torch.optim.SGD(net.parameters(), lr=LR)
        scaler = torch.amp.GradScaler("cuda", enabled=scaled)
        losses = []
        for step in range(STEPS):
            opt.zero_grad(set_to_none=True)
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # No eager fallback.
                with torch.autocast("cuda", dtype=dtype):
                    y = net(xs[step])
                    loss = torch.nn.functional.mse_loss(y, targets[step])
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            losses.append(loss.detach())
        runs[label] = (losses, [p.detach().clone() for p in net.parameters()],
                       y.dtype)
    (lf, pf, tf), (le, pe, te) = runs["fuser"], runs["eager"]
    assert tf == te, (tf, te)
    for step, (a, b) in enumerate(zip(lf, le)):
        check(f"{name} {dtype} loss after step {step}", a, b)
    for (pname, _), a, b in zip(model.named_parameters(), pf, pe):
        err = check(f"{name} {dtype} {pname} after {STEPS} steps", a, b)
        print(f"{name} {dtype} {pname}: max error vs eager autocast {err:.3e}")


@pytest.mark.parametrize("name", NAMES)
def test_sgd_steps_match_eager_autocast(name):
    compare_sgd_steps(name, torch.bfloat16, seed=1234)


F16_NAMES = sorted(n for n, e in TRAINING.items()
                   if any("autocast-f16" in v for v in e["kernels"]))


@pytest.mark.parametrize("name", F16_NAMES)
def test_float16_steps_with_grad_scaler(name):
    """fp16 as users train in it: torch.autocast("cuda", float16) around
    forward and loss, torch.amp.GradScaler around backward and step."""
    compare_sgd_steps(name, torch.float16, seed=99, scaled=True)
