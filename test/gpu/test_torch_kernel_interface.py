"""fuser.torch.elementwise (the KernelInterface API) on the GPU: the packages
scripts/build-torch-artifacts.py compiles into .artifacts/torch/elementwise/
from test/gpu/Inputs/elementwise_fns.py (leaky_relu with slopes 0.01, 0.1,
0.2; a static leaky_relu for 91 elements; swish; tanh GELU; a two-tensor
function), loaded with torch and fuser's runtime only, against the same
functions run eagerly in float32 and float64 at atol = rtol = 1e-4:

- forward(x, *consts) and backward(grad_out, x, *consts) into NaN-poisoned
  outputs (out=: every element must be written), and allocating;
- the autograd path (kernel(x, *consts), .backward()) and a users'
  torch.autograd.Function built on forward/backward, as the KernelInterface
  format has it;
- odd shapes (0-d, 1, 7x13, 1023x1025, 2x3x4097, empty) through one dynamic
  kernel pair; transposed and misaligned views; a tensor past 2^31 bytes.
"""

import json
import sys
from pathlib import Path

import pytest
import torch

import fuser
import fuser.torch as ft
from gpu_util import ARTIFACTS

TORCH_ARTIFACTS = ARTIFACTS / "torch"
INDEX = TORCH_ARTIFACTS / "index.json"
TOL = 1e-4
CHUNK = 1 << 26

if not INDEX.exists() or "elementwise" not in json.loads(INDEX.read_text()):
    pytest.skip(f"{TORCH_ARTIFACTS}/elementwise missing: run "
                "scripts/build-torch-artifacts.py (--only-elementwise) where "
                "torch-mlir is", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).parent / "Inputs"))
import elementwise_fns  # noqa: E402

FORMS = elementwise_fns.FORMS
SHAPES = [(7, 13), (1,), (), (3, 5, 7), (1023, 1025), (2, 3, 4097), (0, 5)]
STATIC_SHAPES = [(7, 13), (13, 7), (91,)]


pytestmark = pytest.mark.usefixtures("fp32_reference")


@pytest.fixture(autouse=True)
def free_cached_memory():
    yield
    torch.cuda.empty_cache()

_LOADED = {}


def kernel(name):
    if name not in _LOADED:
        path = TORCH_ARTIFACTS / "elementwise" / f"{name}.fuser"
        _LOADED[name] = ft.load_elementwise(path)
    return _LOADED[name]


def cases():
    for name, (fn, forms, n, dynamic) in FORMS.items():
        for consts in forms:
            yield pytest.param(name, consts, id=f"{name}{list(consts)}")


def inputs(shape, n, generator):
    """n tensors, both signs, some exact zeros (leaky_relu's kink)."""
    out = []
    for _ in range(n):
        x = torch.randn(shape, device="cuda", generator=generator) * 3
        if x.numel() > 8:
            x.view(-1)[::max(1, x.numel() // 7)] = 0.0
        out.append(x)
    return out


def eager(fn, tensors, consts, grad, dtype):
    """fn's output and the tensors' gradients, eagerly in dtype."""
    ts = [t.detach().to(dtype).requires_grad_(True) for t in tensors]
    y = fn(*ts, *consts)
    grads = torch.autograd.grad(y, ts, grad.to(dtype), allow_unused=True)
    return y.detach(), [torch.zeros_like(t) if g is None else g.detach()
                        for t, g in zip(ts, grads)]


def check(what, new, e32, e64):
    """Every element written (no NaN where float64 has none), then
    allclose(new, ref, 1e-4, 1e-4) against eager fp32 and float64; returns
    the max abs errors."""
    assert new.shape == e64.shape, f"{what}: shape {tuple(new.shape)} != " \
        f"{tuple(e64.shape)}"
    a, r32, r64 = (t.detach().reshape(-1) for t in (new, e32, e64))
    worst = [0.0, 0.0]
    for s in range(0, a.numel(), CHUNK):
        x, y32, y64 = a[s:s + CHUNK], r32[s:s + CHUNK], r64[s:s + CHUNK]
        unwritten = torch.isnan(x) & ~torch.isnan(y64)
        assert not bool(unwritten.any()), \
            f"{what}: {int(unwritten.sum())} elements unwritten (NaN)"
        for i, ref in enumerate((y32, y64)):
            err = (x.double() - ref.double()).abs()
            worst[i] = max(worst[i], float(err.max()) if err.numel() else 0.0)
            if not torch.allclose(x.double(), ref.double(), atol=TOL,
                                  rtol=TOL, equal_nan=True):
                pytest.fail(f"{what} vs {('eager fp32', 'float64')[i]}: "
                            f"max abs error {float(err.max()):.3e}")
    return worst


def shapes_of(name):
    return SHAPES if FORMS[name][3] else STATIC_SHAPES


@pytest.mark.parametrize("name, consts", list(cases()))
def test_forward_and_backward(name, consts, generator):
    fn, _, n, _ = FORMS[name]
    k = kernel(name)
    worst = [0.0, 0.0]
    for shape in shapes_of(name):
        xs = inputs(shape, n, generator)
        g = torch.randn(shape, device="cuda", generator=generator)
        y32, d32 = eager(fn, xs, consts, g, torch.float32)
        y64, d64 = eager(fn, xs, consts, g, torch.float64)
        tag = f"{name}{list(consts)} {list(shape)}"
        # Into NaN-poisoned outputs: every element must be written.
        y = torch.full(shape, float("nan"), device="cuda")
        assert k.forward(*xs, *consts, out=y) is y
        dx = tuple(torch.full(shape, float("nan"), device="cuda")
                   for _ in range(n))
        k.backward(g, *xs, *consts, out=dx if n > 1 else dx[0])
        for label, new, e32, e64 in [("forward", y, y32, y64)] + [
                (f"backward d{i}", dx[i], d32[i], d64[i]) for i in range(n)]:
            for i, e in enumerate(check(f"{tag} {label} (out=)", new, e32,
                                        e64)):
                worst[i] = max(worst[i], e)
        # Allocating, and the autograd path.
        check(f"{tag} forward", k.forward(*xs, *consts), y32, y64)
        got = k.backward(g, *xs, *consts)
        got = got if n > 1 else (got,)
        for i in range(n):
            check(f"{tag} backward d{i}", got[i], d32[i], d64[i])
        leaves = [x.clone().requires_grad_(True) for x in xs]
        out = k(*leaves, *consts)
        assert out.requires_grad and out.shape == torch.Size(shape)
        out.backward(g)
        check(f"{tag} autograd output", out, y32, y64)
        for i, leaf in enumerate(leaves):
            check(f"{tag} autograd d{i}", leaf.grad, d32[i], d64[i])
    print(f"[gpu tests] elementwise {name}{list(consts)}: "
          f"{k.fuser_kernels[next(iter(k.fuser_kernels))]}; max abs error "
          f"vs eager fp32 {worst[0]:.3e}, vs float64 {worst[1]:.3e} "
          f"(shapes {shapes_of(name)})")


def test_kernel_counts():
    """One forward kernel and one backward kernel per form (two backward
    kernels for two tensor arguments: one per gradient)."""
    for name, (fn, forms, n, dynamic) in FORMS.items():
        k = kernel(name)
        assert len(k.fuser_kernels) == len(forms), name
        for form, variants in k.fuser_kernels.items():
            fw, bw = (variants["dynamic"], variants["dynamic-backward"]) \
                if dynamic else (variants["static"],
                                 variants["static-backward"])
            assert len(fw) == 1 and len(bw) == n, (name, form, variants)


def test_views_and_alignment(generator):
    """Transposed and misaligned (4-byte offset) views: run dense copies;
    the result has the view's shape."""
    fn = elementwise_fns.swish
    k = kernel("swish")
    base = torch.randn(301, 203, device="cuda", generator=generator)
    for label, x in (("transposed", base.t()), ("sliced", base[:, 1:]),
                     ("misaligned", base.reshape(-1)[1:])):
        g = torch.randn(x.shape, device="cuda", generator=generator)
        y32, (d32,) = eager(fn, [x], (1.0,), g, torch.float32)
        y64, (d64,) = eager(fn, [x], (1.0,), g, torch.float64)
        check(f"swish {label} forward", k.forward(x, 1.0), y32, y64)
        check(f"swish {label} backward", k.backward(g, x, 1.0), d32, d64)
        leaf = x.detach().clone().requires_grad_(True)
        k(leaf, 1.0).backward(g)
        check(f"swish {label} autograd", leaf.grad, d32, d64)


class LeakyReLUFunction(torch.autograd.Function):
    """How a users' framework wires a KernelInterface: its own
    autograd.Function over forward(x, slope) and backward(grad_out, x,
    slope)."""

    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        return kernel("leaky_relu").forward(x, slope)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return kernel("leaky_relu").backward(grad_out, x, ctx.slope), None


def test_users_autograd_function(generator):
    fn = elementwise_fns.leaky_relu
    x = torch.randn(257, 129, device="cuda", generator=generator)
    g = torch.randn_like(x)
    leaf = x.clone().requires_grad_(True)
    y = LeakyReLUFunction.apply(leaf, 0.2)
    y.backward(g)
    y32, (d32,) = eager(fn, [x], (0.2,), g, torch.float32)
    y64, (d64,) = eager(fn, [x], (0.2,), g, torch.float64)
    check("users' Function output", y, y32, y64)
    check("users' Function gradient", leaf.grad, d32, d64)


def test_constants_not_compiled_are_refused():
    x = torch.randn(8, device="cuda")
    with pytest.raises(fuser.FuserError, match="not compiled for constants"):
        kernel("leaky_relu").forward(x, 0.3)
    with pytest.raises(fuser.FuserError, match="91 elements"):
        kernel("leaky_relu_static").forward(torch.randn(92, device="cuda"),
                                            0.1)


def test_2_pow_31_bytes(generator):
    """600 M elements (2.4 GB per tensor, byte offsets past 2^31; named so
    bench/gpu-check.sh leaves it out under compute-sanitizer): the
    dynamic leaky_relu, forward and backward into poisoned outputs, against
    eager fp32 (exact operations: float64 adds nothing; allclose at 1e-4
    all the same)."""
    free, _ = torch.cuda.mem_get_info()
    numel = 600 * 1024 * 1024
    if free < 10 * numel * 4:
        pytest.skip(f"needs {10 * numel * 4 / 2**30:.0f} GiB free")
    k = kernel("leaky_relu")
    x = torch.randn(numel, device="cuda", generator=generator)
    y = torch.full_like(x, float("nan"))
    k.forward(x, 0.01, out=y)
    ref = torch.where(x > 0, x, x * 0.01)
    check("leaky_relu 600M forward", y, ref, ref)
    del ref
    g = y  # Any gradient: the output, reused.
    dx = torch.full_like(x, float("nan"))
    k.backward(g, x, 0.01, out=dx)
    ref = torch.where(x > 0, g, g * 0.01)
    worst = check("leaky_relu 600M backward", dx, ref, ref)
    print(f"[gpu tests] elementwise leaky_relu: {numel} elements "
          f"(past 2^31 bytes): max abs error vs eager {worst[0]:.3e}")


def test_no_torch_mlir_needed():
    assert not any(m == "torch_mlir" or m.startswith("torch_mlir.")
                   for m in sys.modules)
