"""Scan kernels (fuser-scan-to-gpu, configured by fuser-configure-kernels)
against float64: cumulative sums along rows (dynamic lengths from 0 to
100003, static 100 and 4000: one warp, one block, many chunks), down
columns and along a middle dimension, f64 products, a NaN-propagating
running maximum, exact i64 sums, exclusive scans from a loaded init with
their accumulators (the last output along the dimension). Fresh inputs of
both signs, NaN-poisoned outputs, every kernel deterministic."""

import math

import pytest
import torch

from gpu_util import check, load, poisoned

ROWS = [(1, 1), (7, 3), (5, 0), (0, 5), (3, 31), (129, 4097), (2, 100003),
        (1000, 1000)]


def cum_tol(x, dim):
    """fp32 error bound of a scan combined in a tree of chunks: a few
    roundings per level on the running sum of magnitudes."""
    length = x.shape[dim]
    levels = 8 + math.log2(length + 1) + length / 4096
    return levels * 1.2e-7 * x.double().abs().cumsum(dim) + 1e-30


def check_scan(name, out, ref, tol):
    check(name, out, ref, 1.0)
    excess = ((out.double() - ref).abs() - tol).max() if out.numel() else 0
    assert float(excess) <= 0, f"{name}: error beyond the fp32 scan bound"


@pytest.mark.parametrize("m,n", ROWS)
def test_cumsum_rows(m, n, generator):
    mod = load("scans")
    x = torch.randn((m, n), device="cuda", generator=generator)
    out = poisoned((m, n))
    mod.cumsum_rows(x, out=out)
    check_scan(f"cumsum rows {m}x{n}", out, x.double().cumsum(1), cum_tol(x, 1))
    again = poisoned((m, n))
    mod.cumsum_rows(x, out=again)
    assert torch.equal(out, again), "row scan is not deterministic"


@pytest.mark.parametrize("name,n", [("cumsum_rows_100", 100), ("cumsum_rows_4000", 4000)])
@pytest.mark.parametrize("m", [1, 129, 4096])
def test_cumsum_static_rows(name, n, m, generator):
    mod = load("scans")
    x = torch.randn((m, n), device="cuda", generator=generator)
    out = poisoned((m, n))
    getattr(mod, name)(x, out=out)
    check_scan(f"{name} {m}x{n}", out, x.double().cumsum(1), cum_tol(x, 1))


@pytest.mark.parametrize("m,n", ROWS)
def test_cumsum_cols(m, n, generator):
    mod = load("scans")
    x = torch.randn((m, n), device="cuda", generator=generator)
    out = poisoned((m, n))
    mod.cumsum_cols(x, out=out)
    check_scan(f"cumsum cols {m}x{n}", out, x.double().cumsum(0), cum_tol(x, 0))


@pytest.mark.parametrize("shape", [(4, 50, 3), (2, 1000, 257), (1, 7, 1), (3, 0, 2)])
def test_cumsum_middle(shape, generator):
    mod = load("scans")
    x = torch.randn(shape, device="cuda", generator=generator)
    out = poisoned(shape)
    mod.cumsum_middle(x, out=out)
    check_scan(f"cumsum middle {shape}", out, x.double().cumsum(1), cum_tol(x, 1))


@pytest.mark.parametrize("m,n", [(3, 200), (64, 5000)])
def test_cumprod_f64(m, n, generator):
    mod = load("scans")
    # Factors near 1 of both signs: products neither vanish nor overflow.
    x = (1 + 0.01 * torch.randn((m, n), device="cuda", generator=generator)).double()
    x[:, ::7] *= -1
    out = poisoned((m, n)).double()
    mod.cumprod_rows_f64(x, out=out)
    check(f"cumprod f64 {m}x{n}", out, x.cumprod(1), 1e-12)


def test_cummax_nan_inf(generator):
    mod = load("scans")
    x = torch.randn((9, 3000), device="cuda", generator=generator)
    x[1, 1234] = float("nan")
    x[2, 0] = float("nan")
    x[3, 2999] = float("inf")
    x[4, :] = float("-inf")
    x[5, 100:] = 2.0  # ties
    out = poisoned(x.shape)
    mod.cummax_rows(x, out=out)
    ref = x.double().cummax(1).values
    # torch.cummax keeps a NaN once seen; maximumf does too.
    ref[1, 1234:] = float("nan")
    ref[2, :] = float("nan")
    check("cummax rows", out, ref, 0.0)


@pytest.mark.parametrize("m,n", [(7, 3), (129, 4097), (2, 100003)])
def test_cumsum_i64(m, n, generator):
    mod = load("scans")
    x = torch.randint(-(1 << 40), 1 << 40, (m, n), device="cuda", generator=generator)
    out = torch.full((m, n), -7, dtype=torch.int64, device="cuda")
    mod.cumsum_rows_i64(x, out=out)
    assert torch.equal(out, x.cumsum(1)), "i64 cumsum differs"


@pytest.mark.parametrize("m,n", [(1, 1), (7, 3), (129, 4097), (5, 0)])
def test_exclusive_rows(m, n, generator):
    mod = load("scans")
    x = torch.randn((m, n), device="cuda", generator=generator)
    init = torch.randn((m,), device="cuda", generator=generator)
    out, acc = poisoned((m, n)), poisoned((m,))
    mod.exclusive_cumsum_rows(x, init, out=(out, acc))
    joined = torch.cat([init[:, None], x], 1)
    full, tol = joined.double().cumsum(1), cum_tol(joined, 1)
    check_scan(f"exclusive rows {m}x{n}", out, full[:, :n], tol[:, :n])
    # The accumulator: the last output (the init when the row is empty).
    check_scan(f"exclusive rows accumulator {m}x{n}", acc, full[:, n - 1], tol[:, n - 1])


@pytest.mark.parametrize("m,n", [(1, 1), (7, 3), (4097, 129), (0, 5)])
def test_exclusive_cols(m, n, generator):
    mod = load("scans")
    x = torch.randn((m, n), device="cuda", generator=generator)
    init = torch.randn((n,), device="cuda", generator=generator)
    out, acc = poisoned((m, n)), poisoned((n,))
    mod.exclusive_cumsum_cols(x, init, out=(out, acc))
    joined = torch.cat([init[None, :], x], 0)
    full, tol = joined.double().cumsum(0), cum_tol(joined, 0)
    check_scan(f"exclusive cols {m}x{n}", out, full[:m], tol[:m])
    check_scan(f"exclusive cols accumulator {m}x{n}", acc, full[m - 1], tol[m - 1])
