"""Reduction kernels (fuser-reduction-to-gpu, configured by
fuser-configure-kernels) against float64: row and column sums, torch-mlir's
keepdim GroupNorm sum in f64, a maximum over a broadcast product, short rows
combined by warp shuffles, an init read from memory, i64 sums and i32
maxima, and an index-weighted total into one element. Dynamic, odd sizes (not multiples
of the threads that share an output), empty reductions, NaN-poisoned
outputs, fresh inputs of both signs; sums within fp32 rounding of their
length, and each kernel deterministic."""

import pytest
import torch

from gpu_util import check, load, poisoned

SHAPES = [(1, 1), (7, 3), (1000, 4097), (4096, 1024), (33, 70001), (5, 0)]


def data(shape, generator):
    return torch.randn(shape, device="cuda", generator=generator)


def sum_tol(length):
    # fp32 partial sums of `length` unit-scale terms in a tree stay well
    # within this absolute bound; check_sum applies it alone (no relative
    # part), so a missing or doubled term of typical size fails.
    return 64 * 1.2e-7 * max(1.0, length ** 0.5) * 4.5


def check_sum(name, out, ref, tol):
    """check's NaN and shape checks, then |out - ref| <= tol absolutely."""
    check(name, out, ref, 1.0)
    err = float((out.double() - ref).abs().max()) if out.numel() else 0.0
    assert err <= tol, f"{name}: max abs error {err:.3e} exceeds {tol:.3e}"


@pytest.mark.parametrize("m,n", SHAPES)
def test_row_sum(m, n, generator):
    mod = load("reductions")
    x = data((m, n), generator)
    out = poisoned((m,))
    mod.row_sum(x, out=out)
    check_sum(f"row sum {m}x{n}", out, x.double().sum(1), sum_tol(n))
    again = poisoned((m,))
    mod.row_sum(x, out=again)
    assert torch.equal(out, again), "row sum is not deterministic"


@pytest.mark.parametrize("m,n", SHAPES)
def test_col_sum(m, n, generator):
    mod = load("reductions")
    x = data((m, n), generator)
    out = poisoned((n,))
    mod.col_sum(x, out=out)
    check_sum(f"column sum {m}x{n}", out, x.double().sum(0), sum_tol(m))


@pytest.mark.parametrize("n,g", [(1, 1), (3, 5), (1024, 512), (77, 129)])
def test_group_sum_f64(n, g, generator):
    mod = load("reductions")
    x = data((n, g, 16, 1), generator)
    out = poisoned((n, g, 1, 1)).double()
    mod.group_sum_f64(x, out=out)
    # Widened before summing: exact to f64 rounding.
    check(f"f64 group sum {n}x{g}x16", out, x.double().sum((2, 3), keepdim=True), 1e-12)


@pytest.mark.parametrize("m,n", SHAPES)
def test_row_max_scaled(m, n, generator):
    mod = load("reductions")
    x, s = data((m, n), generator), data((n,), generator)
    out = poisoned((m,))
    mod.row_max_scaled(x, s, out=out)
    ref = (x * s).double().amax(1) if n else torch.full((m,), float("-inf"), device="cuda",
                                                        dtype=torch.float64)
    check(f"row max {m}x{n}", out, ref, 0.0)


@pytest.mark.parametrize("n", [0, 1, 1000, 70001, 1 << 22])
def test_index_weighted_total(n, generator):
    mod = load("reductions")
    x = data((n,), generator)
    out = poisoned(())
    mod.index_weighted_total(x, out=out)
    w = (torch.arange(n, device="cuda") % 7).double()
    check_sum(f"index-weighted total of {n}", out, (x.double() * w).sum(), sum_tol(n) * 6)


@pytest.mark.parametrize("m", [1, 7, 1000, 100003])
def test_row_sum_shuffles(m, generator):
    mod = load("reductions")
    x = data((m, 20), generator)
    out = poisoned((m,))
    mod.row_sum_20(x, out=out)
    check_sum(f"row sum {m}x20 (warp shuffles)", out, x.double().sum(1), sum_tol(20))


@pytest.mark.parametrize("m,n", SHAPES)
def test_row_sum_plus_init(m, n, generator):
    mod = load("reductions")
    x, b = data((m, n), generator), data((m,), generator)
    out = poisoned((m,))
    mod.row_sum_plus(x, b, out=out)
    check_sum(f"row sum + init {m}x{n}", out, x.double().sum(1) + b.double(), sum_tol(n))


@pytest.mark.parametrize("m", [1, 7, 100003])
def test_integer_reductions(m, generator):
    mod = load("reductions")
    x = torch.randint(-(1 << 40), 1 << 40, (m, 20), device="cuda", generator=generator)
    out = torch.full((m,), -7, dtype=torch.int64, device="cuda")
    mod.row_sum_i64(x, out=out)
    assert torch.equal(out, x.sum(1)), "i64 row sums differ"
    y = torch.randint(-(1 << 31), (1 << 31) - 1, (m, 33), dtype=torch.int32, device="cuda",
                      generator=generator)
    out32 = torch.full((33,), 7, dtype=torch.int32, device="cuda")
    mod.col_max_i32(y, out=out32)
    assert torch.equal(out32, y.amax(0)), "i32 column maxima differ"
