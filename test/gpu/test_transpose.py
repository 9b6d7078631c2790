"""Pointwise groups that read an input transposed: the shared-memory tiled
kernel (strategy pointwise_transpose) against PyTorch, on odd, dynamic and
batched shapes (test/gpu/Inputs/transpose.mlir)."""

import pytest
import torch

from gpu_util import check, load, poisoned, randn

TOL = 1e-5  # one fp32 rounding against a float64 reference

# Result shapes: tile multiples, ragged edges both ways, single rows and
# columns, tiny.
SHAPES = [(1, 1), (7, 33), (33, 7), (1, 100), (100, 1), (64, 96),
          (1000, 4097), (4097, 1000)]


@pytest.mark.parametrize("shape", SHAPES)
def test_copy_dynamic(shape, generator):
    mod = load("transpose")
    x = randn(shape[::-1], generator)
    out = poisoned(shape)
    mod.copy(x, out=out)
    assert torch.equal(out, x.t()), f"copy{shape}: not an exact transpose"
    assert torch.equal(mod.copy(x), x.t())


@pytest.mark.parametrize("name,shape", [("copy_7x33", (7, 33)), ("copy_1000x4097", (1000, 4097)),
                                        ("copy_4097x1000", (4097, 1000)), ("copy_1x1", (1, 1))])
def test_copy_static(name, shape, generator):
    mod = load("transpose")
    x = randn(shape[::-1], generator)
    out = poisoned(shape)
    getattr(mod, name)(x, out=out)
    assert torch.equal(out, x.t()), f"{name}: not an exact transpose"


def test_copy_special_values():
    """NaN, infinities, -0.0 and denormals are copied bit for bit."""
    mod = load("transpose")
    vals = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 1e-40, -1e-45, 3.0],
                        device="cuda")
    x = vals.repeat(37 * 41 // len(vals) + 1)[: 37 * 41].reshape(41, 37)
    out = poisoned((37, 41))
    mod.copy(x, out=out)
    assert torch.equal(out.view(torch.int32), x.t().contiguous().view(torch.int32))


def test_copy_empty():
    mod = load("transpose")
    assert mod.copy(torch.empty((0, 5), device="cuda")).shape == (5, 0)
    assert mod.copy(torch.empty((5, 0), device="cuda")).shape == (0, 5)


@pytest.mark.parametrize("shape", SHAPES)
def test_scale_add(shape, generator):
    """x.T * 2 + y: y read directly at the result's coordinates."""
    mod = load("transpose")
    x = randn(shape[::-1], generator)
    y = randn(shape, generator)
    out = poisoned(shape)
    mod.scale_add(x, y, out=out)
    check(f"scale_add{shape}", out, x.t().double() * 2 + y.double(), TOL)


@pytest.mark.parametrize("shape", [(1, 1), (7, 33), (1000, 4097)])
def test_greater_mask(shape, generator):
    """An i1 result (one byte per element): every byte written."""
    mod = load("transpose")
    x = randn(shape[::-1], generator)
    y = randn(shape, generator)
    ref = x.t() > y
    for fill in (False, True):
        out = torch.full(shape, fill, dtype=torch.bool, device="cuda")
        mod.greater(x, y, out=out)
        assert torch.equal(out, ref), f"greater{shape}: mask differs (prefilled {fill})"


def batched_ref(x, y, b):
    xt = x.transpose(1, 2)
    return xt.double() * 2 + y.double() + b.double(), xt


def test_batched_static(generator):
    mod = load("transpose")
    x = randn((3, 129, 65), generator)
    y = randn((3, 65, 129), generator)
    b = randn((129,), generator)
    outs = (poisoned((3, 65, 129)), poisoned((3, 65, 129)))
    mod.batched(x, y, b, out=outs)
    ref, xt = batched_ref(x, y, b)
    check("batched", outs[0], ref, TOL)
    assert torch.equal(outs[1], xt), "batched: second result not an exact transpose"


@pytest.mark.parametrize("shape", [(3, 65, 129), (1, 1, 1), (2, 7, 33), (5, 1000, 33), (4, 32, 32)])
def test_batched_dynamic(shape, generator):
    mod = load("transpose")
    bsz, m, n = shape
    x = randn((bsz, n, m), generator)
    y = randn(shape, generator)
    b = randn((n,), generator)
    outs = (poisoned(shape), poisoned(shape))
    mod.batched_dynamic(x, y, b, out=outs)
    ref, xt = batched_ref(x, y, b)
    check(f"batched_dynamic{shape}", outs[0], ref, TOL)
    assert torch.equal(outs[1], xt), f"batched_dynamic{shape}: second result not an exact transpose"
