"""Batched (torch.bmm) and transposed-A (x.T @ W) fuser.matmul groups on the
GPU against float64 references (issue 13): every size dynamic and no tile or
vector multiple, epilogue inputs read per batch and shared by all batches,
NaN-poisoned outputs. The default kernels (fp64 tensor cores for batched f32,
FFMA for an M-major A) and the FFMA kernel for the batched ones."""

import math

import pytest
import torch

from gpu_util import check, load, poisoned, randn

TOL = 1e-4  # the users' fp32 rule (atol = rtol = 1e-4)
STEMS = ["matmul_batched_transposed", "matmul_batched_transposed_ffma"]
SHAPES = [(1, 1, 1, 1), (3, 37, 53, 45), (2, 130, 129, 257), (5, 8, 24, 16), (1, 257, 3, 1000)]


@pytest.mark.parametrize("stem", STEMS)
@pytest.mark.parametrize("bsz,m,n,k", SHAPES)
def test_bmm_epilogue_inputs(stem, bsz, m, n, k, generator):
    mod = load(stem)
    x, w = randn((bsz, m, k), generator), randn((bsz, k, n), generator, 1.0 / math.sqrt(k))
    bias, s = randn((bsz, n), generator), randn((bsz,), generator)
    r, f = randn((m, n), generator), randn((bsz, m, n), generator)
    out = poisoned((bsz, m, n))
    mod.bmm(x, w, bias, s, r, f, out=out)
    acc = x.double() @ w.double()
    ref = (acc + bias.double()[:, None, :]) * s.double()[:, None, None] + r.double() + f.double()
    check(f"{stem} bmm {bsz}x{m}x{n}x{k}", out, ref, TOL)


@pytest.mark.parametrize("stem", STEMS)
@pytest.mark.parametrize("bsz,m,n,k", SHAPES)
def test_bmm_transposed_b(stem, bsz, m, n, k, generator):
    mod = load(stem)
    x, w = randn((bsz, m, k), generator), randn((bsz, n, k), generator, 1.0 / math.sqrt(k))
    out = poisoned((bsz, m, n))
    mod.bmm_nt(x, w, out=out)
    ref = torch.clamp(x.double() @ w.double().transpose(1, 2), min=0) * 0.5
    check(f"{stem} bmm_nt {bsz}x{m}x{n}x{k}", out, ref, TOL)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (37, 53, 45), (130, 129, 257), (8, 64, 32), (300, 5, 4097)])
def test_transposed_a(m, n, k, generator):
    """x.T @ W + b with x stored K x M (torch's x.T, absorbed as transpose_a)."""
    mod = load("matmul_batched_transposed")
    x, w = randn((k, m), generator), randn((k, n), generator, 1.0 / math.sqrt(k))
    bias = randn((n,), generator)
    out = poisoned((m, n))
    mod.xt_w(x, w, bias, out=out)
    check(f"xt_w {m}x{n}x{k}", out, x.double().T @ w.double() + bias.double(), TOL)


@pytest.mark.parametrize("stem", STEMS)
@pytest.mark.parametrize("bsz,m,n,k", SHAPES)
def test_batched_both_transposed(stem, bsz, m, n, k, generator):
    mod = load(stem)
    x, w = randn((bsz, k, m), generator), randn((bsz, n, k), generator, 1.0 / math.sqrt(k))
    r = randn((bsz, m), generator)
    out = poisoned((bsz, m, n))
    mod.bxt_w(x, w, r, out=out)
    ref = x.double().transpose(1, 2) @ w.double().transpose(1, 2) + r.double()[:, :, None]
    check(f"{stem} bxt_w {bsz}x{m}x{n}x{k}", out, ref, TOL)


def test_batch_mismatch_raises(generator):
    import fuser
    mod = load("matmul_batched_transposed")
    with pytest.raises(fuser.FuserError, match="batch sizes"):
        mod.bmm_nt(randn((2, 4, 5), generator), randn((3, 6, 5), generator))


def test_empty_batch(generator):
    """B = 0: nothing to compute, an empty result, no launch error."""
    mod = load("matmul_batched_transposed")
    y = mod.bmm_nt(randn((0, 4, 5), generator), randn((0, 6, 5), generator))
    assert tuple(y.shape) == (0, 4, 6)


@pytest.mark.parametrize("stem", STEMS)
def test_more_batches_than_a_grid_dimension(stem, generator):
    """70000 batches: past grid z's 65535, so the batches run along x."""
    mod = load(stem)
    x, w = randn((70000, 2, 5), generator), randn((70000, 3, 5), generator, 0.5)
    out = poisoned((70000, 2, 3))
    mod.bmm_nt(x, w, out=out)
    ref = torch.clamp(x.double() @ w.double().transpose(1, 2), min=0) * 0.5
    check(f"{stem} bmm_nt 70000x2x3x5", out, ref, TOL)
