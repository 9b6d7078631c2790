"""fuser.group_norm_grad (GroupNorm's input gradient, one kernel per call)
against float64 torch autograd of F.group_norm: dx with gamma as the weight
and the prologue's dy as grad_output, and the (N, groups) mean and rstd.
Inputs are test/gpu/Inputs/group_norm_grad.mlir: W3's groups of 16 with its
LeakyReLU-mask prologue, groups of 105 (odd), 70 (vector lanes spanning
channels), 3, 1024 (4 warps) and 16384 (16 warps, prologue inputs per
sample, channel and (h, w)); all with a dynamic N."""

import pytest
import torch
import torch.nn.functional as F

from gpu_util import check, load, poisoned, randn

TOL = 1e-4  # the users' fp32 rule (atol = rtol = 1e-4)
EPS = 1e-5

BATCHES = [1, 5, 300]  # 300: many blocks; with 2 groups a sample, a partly filled last block
# Both signs around 0, and a large mean with a small spread (the kernel
# shifts by the group's first element so that x - mean keeps its digits).
STATS = [(0.0, 3.0), (100.0, 0.05)]


def gn_grad_ref(x, gamma, dy, groups, eps=EPS):
    """float64: dx by autograd of F.group_norm(x, groups, gamma) with grad
    output dy; mean and rstd = 1 / sqrt(var + eps) (biased) per group."""
    xd = x.double().requires_grad_(True)
    y = F.group_norm(xd, groups, gamma.double(), None, eps)
    (dx,) = torch.autograd.grad(y, xd, dy.double())
    g = x.double().reshape(x.shape[0], groups, -1)
    mean = g.mean(-1)
    rstd = 1.0 / torch.sqrt(g.var(-1, unbiased=False) + eps)
    return dx, mean, rstd


def run_and_check(fn, name, x, gamma, prologue_inputs, dy, groups):
    """Launches with NaN-poisoned outputs, checks dx, mean and rstd."""
    n = x.shape[0]
    dx, mean, rstd = poisoned(x.shape), poisoned((n, groups)), poisoned((n, groups))
    fn(x, gamma, *prologue_inputs, out=(dx, mean, rstd))
    ref_dx, ref_mean, ref_rstd = gn_grad_ref(x, gamma, dy, groups)
    check(f"{name} dx", dx, ref_dx, TOL)
    check(f"{name} mean", mean, ref_mean, TOL)
    check(f"{name} rstd", rstd, ref_rstd, TOL)


def inputs(shape, offset, scale, generator):
    x = offset + randn(shape, generator, scale)
    gamma = 1 + 0.5 * randn((shape[1],), generator, 1.0)
    return x, gamma


@pytest.mark.parametrize("n", BATCHES)
@pytest.mark.parametrize("offset,scale", STATS)
def test_w3_leaky_mask(n, offset, scale, generator):
    """W3's backward GroupNorm(512) on N x 8192 (groups of 16, 128 groups a
    block): dy = select(z > 0, dout, 0.01 * dout), z with exact zeros."""
    mod = load("group_norm_grad")
    x, gamma = inputs((n, 8192), offset, scale, generator)
    dout, z = randn((n, 8192), generator), randn((n, 8192), generator)
    dy = torch.where(z > 0, dout, 0.01 * dout)
    run_and_check(mod.w3, f"group_norm_grad w3 n={n} mean={offset} std={scale}",
                  x, gamma, (dout, z), dy, 512)


@pytest.mark.parametrize("n", BATCHES)
@pytest.mark.parametrize("offset,scale", STATS)
@pytest.mark.parametrize("fn,groups", [
    ("odd", 2),   # 105-element groups: scalar accesses
    ("span", 3),  # 70-element groups: 2-wide, lanes of two channels; dy = exp(dout)
])
def test_nchw_spatial(fn, groups, n, offset, scale, generator):
    """N x 6 x 5 x 7: groups covering channels and spatial dimensions."""
    mod = load("group_norm_grad")
    shape = (n, 6, 5, 7)
    x, gamma = inputs(shape, offset, scale, generator)
    if fn == "span":
        dout = randn(shape, generator, 1.0)
        dy = torch.exp(dout.double())
    else:
        dout = randn(shape, generator)
        dy = dout
    run_and_check(getattr(mod, fn), f"group_norm_grad {fn} n={n} mean={offset} std={scale}",
                  x, gamma, (dout,), dy, groups)


@pytest.mark.parametrize("n", BATCHES)
@pytest.mark.parametrize("offset,scale", STATS)
@pytest.mark.parametrize("fn,shape,groups", [
    ("tiny", (6,), 2),      # groups of 3
    ("wide", (1024,), 1),   # one group of 1024: 4 warps
])
def test_2d(fn, shape, groups, n, offset, scale, generator):
    mod = load("group_norm_grad")
    x, gamma = inputs((n,) + shape, offset, scale, generator)
    dout = randn((n,) + shape, generator)
    run_and_check(getattr(mod, fn), f"group_norm_grad {fn} n={n} mean={offset} std={scale}",
                  x, gamma, (dout,), dout, groups)


@pytest.mark.parametrize("n", [1, 5, 64])  # 64: 256 blocks of 512 threads
@pytest.mark.parametrize("offset,scale", STATS)
def test_large_groups(n, offset, scale, generator):
    """N x 64 x 32 x 32 in 4 groups of 16384 (512 threads, cross-warp sums),
    dy = (dout * s[n] + t[c]) * u[h, w]."""
    mod = load("group_norm_grad")
    shape = (n, 64, 32, 32)
    x, gamma = inputs(shape, offset, scale, generator)
    dout = randn(shape, generator)
    s, t, u = randn((n,), generator), randn((64,), generator), randn((32, 32), generator)
    dy = ((dout.double() * s.double()[:, None, None, None] + t.double()[None, :, None, None])
          * u.double()[None, None])
    run_and_check(mod.large, f"group_norm_grad large n={n} mean={offset} std={scale}",
                  x, gamma, (dout, s, t, u), dy, 4)


def test_zero_batch(generator):
    mod = load("group_norm_grad")
    gamma = 1 + 0.5 * randn((8192,), generator, 1.0)
    empty = torch.empty((0, 8192), device="cuda")
    dx, mean, rstd = mod.w3(empty, gamma, empty, empty)
    assert dx.shape == (0, 8192) and mean.shape == (0, 512) and rstd.shape == (0, 512)


def test_prologue_batch_mismatch_raises(generator):
    import fuser
    mod = load("group_norm_grad")
    x, gamma = inputs((3, 8192), 0.0, 3.0, generator)
    with pytest.raises(fuser.FuserError):
        mod.w3(x, gamma, randn((3, 8192), generator), randn((2, 8192), generator))
