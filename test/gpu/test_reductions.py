"""Reduction kernels (fuser-reduction-to-gpu, configured by
fuser-configure-kernels) against float64: row and column sums, torch-mlir's
keepdim GroupNorm sum in f64, a maximum over a broadcast product, short rows
combined by warp shuffles, an init read from memory, i64 sums and i32
maxima, an index-weighted total into one element, counts of an i1 mask and
torch.any of a whole mask (the generic fallback in one thread), torch.max / min with
their indices (ties, NaN, infinities: PyTorch's answers exactly). Dynamic, odd sizes (not multiples
of the threads that share an output), empty reductions, NaN-poisoned
outputs, fresh inputs of both signs; sums within fp32 rounding of their
length, and each kernel deterministic.

Sums over the middle dimension of (N, C, W) too.

The two-stage form (reductions_two_stage.mlir: few outputs of a long static
extent, P blocks per output writing partials that a second kernel combines):
a scalar sum of ~10M floats, its maximum, an f64-widened and an
index-weighted total, an i64 total, three long rows (with a constant and a
bias init) and three long columns (sum and i32 maximum); every result
bitwise equal on a second run."""

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


@pytest.mark.parametrize("m,n", [(1, 1), (7, 33), (1000, 4097), (3, 0)])
def test_mask_reductions(m, n, generator):
    mod = load("reductions")
    x = torch.rand((m, n), device="cuda", generator=generator) < 0.3
    out = torch.full((m,), -7, dtype=torch.int64, device="cuda")
    mod.mask_row_count(x, out=out)
    assert torch.equal(out, x.sum(1)), "mask row counts differ"
    for mask in (x, torch.zeros_like(x)):
        got = torch.ones((), dtype=torch.bool, device="cuda") ^ mask.any()  # poisoned
        mod.mask_any(mask, out=got)
        assert bool(got) == bool(mask.any()), "torch.any of the mask differs"


def tied_special(shape, dim, generator):
    """Few distinct values (ties), and along `dim`: one line with two NaNs,
    one all -inf, one with two +infs, one all equal."""
    x = torch.randint(-3, 4, shape, device="cuda", generator=generator).float()
    lines = x.movedim(dim, -1)  # a view: writes go to x
    n = lines.shape[-1]
    rows = [lines[(k,) + (0,) * (lines.dim() - 2)] for k in range(min(4, lines.shape[0]))]
    if n >= 2 and rows:
        rows[0][n // 2] = rows[0][n - 1] = float("nan")
    if len(rows) > 1:
        rows[1].fill_(float("-inf"))
    if len(rows) > 2 and n >= 2:
        rows[2][1] = rows[2][n - 1] = float("inf")
    if len(rows) > 3:
        rows[3].fill_(2.0)
    return x


def check_arg(name, values, indices, ref):
    """Values and indices exactly PyTorch's: the first index of the best,
    a NaN winning."""
    want_v, want_i = ref
    assert torch.equal(indices, want_i), \
        f"{name}: {int((indices != want_i).sum())} indices differ from PyTorch's"
    same = (values == want_v) | (torch.isnan(values) & torch.isnan(want_v))
    assert bool(same.all()), f"{name}: values differ from PyTorch's"
    print(f"[gpu tests] {name}: values and indices equal PyTorch's over {values.numel()}")


@pytest.mark.parametrize("shape", [(1, 1, 1), (5, 7, 3), (8, 1000, 33), (3, 4097, 1025),
                                   (2, 300, 70001)])
def test_sum_middle(shape, generator):
    mod = load("reductions")
    x = data(shape, generator)
    out = poisoned((shape[0], shape[2]))
    mod.sum_middle(x, out=out)
    check_sum(f"sum over dim 1 of {shape}", out, x.double().sum(1), sum_tol(shape[1]))
    again = poisoned((shape[0], shape[2]))
    mod.sum_middle(x, out=again)
    assert torch.equal(out, again), "middle sum is not deterministic"


@pytest.mark.parametrize("shape", [(1, 1, 1), (5, 7, 3), (8, 1000, 33), (3, 4097, 1025)])
def test_max_middle(shape, generator):
    mod = load("reductions")
    x = tied_special(shape, 1, generator)
    values = poisoned((shape[0], shape[2]))
    indices = torch.full((shape[0], shape[2]), -7, dtype=torch.int64, device="cuda")
    mod.max_middle(x, out=(values, indices))
    check_arg(f"max over dim 1 of {shape}", values, indices, torch.max(x, dim=1))


@pytest.mark.parametrize("m,n", [(1, 1), (7, 3), (1000, 4097), (4096, 1024), (33, 70001)])
def test_min_rows(m, n, generator):
    mod = load("reductions")
    x = tied_special((m, n), 1, generator)
    values = poisoned((m,))
    indices = torch.full((m,), -7, dtype=torch.int64, device="cuda")
    mod.min_rows(x, out=(values, indices))
    check_arg(f"min over rows of {m}x{n}", values, indices, torch.min(x, dim=1))


# The two-stage form (reductions_two_stage.mlir). Lengths are odd: not
# multiples of the 32-element slices, of the slice count or of the threads.
TOTAL = 10000019
LONG = 1000003


def run_twice(fn, args, make_out):
    """fn into a fresh (poisoned) output twice; the results must be the
    same bits (no atomics: the partials combine in a fixed order)."""
    out, again = make_out(), make_out()
    fn(*args, out=out)
    fn(*args, out=again)
    assert torch.equal(out, again), "two runs of a two-stage reduction differ"
    return out


def test_two_stage_total_sum(generator):
    mod = load("reductions_two_stage")
    x = data((TOTAL,), generator)
    out = run_twice(mod.total_sum, (x,), lambda: poisoned(()))
    check_sum(f"two-stage total of {TOTAL}", out, x.double().sum(), sum_tol(TOTAL))


def test_two_stage_total_max(generator):
    mod = load("reductions_two_stage")
    x = data((TOTAL,), generator)
    out = run_twice(mod.total_max, (x,), lambda: poisoned(()))
    check(f"two-stage max of {TOTAL}", out, x.double().amax(), 0.0)
    # The maximum in the last, short slice and in the first element.
    for at in (TOTAL - 1, 0):
        y = x.clone()
        y[at] = 100.0
        mod.total_max(y, out=out)
        check(f"two-stage max of {TOTAL}, at {at}", out, y.double().amax(), 0.0)


def test_two_stage_total_sum_f64(generator):
    mod = load("reductions_two_stage")
    x = data((TOTAL,), generator)
    out = run_twice(mod.total_sum_f64, (x,), lambda: poisoned(()).double())
    # Widened exactly, summed in f64: within f64 rounding.
    check(f"two-stage f64 total of {TOTAL}", out, x.double().sum(), 1e-9)


def test_two_stage_index_weighted_total(generator):
    mod = load("reductions_two_stage")
    x = data((TOTAL,), generator)
    out = run_twice(mod.index_weighted_total, (x,), lambda: poisoned(()))
    w = (torch.arange(TOTAL, device="cuda") % 7).double()
    check_sum(f"two-stage index-weighted total of {TOTAL}", out, (x.double() * w).sum(),
              sum_tol(TOTAL) * 6)


def test_two_stage_total_sum_i64(generator):
    mod = load("reductions_two_stage")
    n = 4000037
    x = torch.randint(-(1 << 40), 1 << 40, (n,), device="cuda", generator=generator)
    out = run_twice(mod.total_sum_i64, (x,),
                    lambda: torch.full((), -7, dtype=torch.int64, device="cuda"))
    assert torch.equal(out, x.sum()), f"two-stage i64 total: {int(out)} != {int(x.sum())}"


def test_two_stage_rows(generator):
    mod = load("reductions_two_stage")
    x, b = data((3, LONG), generator), data((3,), generator)
    out = run_twice(mod.rows3_sum, (x,), lambda: poisoned((3,)))
    check_sum(f"two-stage row sums 3x{LONG}", out, x.double().sum(1), sum_tol(LONG))
    out = run_twice(mod.rows3_sum_plus, (x, b), lambda: poisoned((3,)))
    check_sum(f"two-stage row sums 3x{LONG} + init", out, x.double().sum(1) + b.double(),
              sum_tol(LONG))


def test_two_stage_columns(generator):
    mod = load("reductions_two_stage")
    x = data((LONG, 3), generator)
    out = run_twice(mod.cols3_sum, (x,), lambda: poisoned((3,)))
    check_sum(f"two-stage column sums {LONG}x3", out, x.double().sum(0), sum_tol(LONG))
    y = torch.randint(-(1 << 31), (1 << 31) - 1, (LONG, 3), dtype=torch.int32, device="cuda",
                      generator=generator)
    out32 = run_twice(mod.cols3_max_i32, (y,),
                      lambda: torch.full((3,), 7, dtype=torch.int32, device="cuda"))
    assert torch.equal(out32, y.amax(0)), "two-stage i32 column maxima differ"


def test_two_stage_total_argmax(generator):
    mod = load("reductions_two_stage")
    # Ties everywhere: the first maximum's index must win across slices.
    x = torch.randint(-50, 50, (TOTAL,), device="cuda", generator=generator).float()
    for with_nan in (False, True):
        if with_nan:
            x[TOTAL - 5] = x[TOTAL // 3] = float("nan")
        values, indices = poisoned(()), torch.full((), -7, dtype=torch.int64, device="cuda")
        mod.total_argmax(x, out=(values, indices))
        want_i = torch.argmax(x)
        want_v = x[want_i]
        check_arg(f"two-stage argmax of {TOTAL}{' with NaN' if with_nan else ''}",
                  values, indices, (want_v, want_i))


def test_pooling(generator):
    """torch-mlir's avg_pool2d / max_pool2d with padding and strides
    (pooling.mlir): windows read through the reduction kernel, the padding
    value outside the input; against PyTorch (max exactly)."""
    import torch.nn.functional as F
    mod = load("pooling")
    for trial in range(3):
        x = data((2, 3, 33, 47), generator)
        if trial == 2:
            x[0, 0, 0, 0] = float("nan")
            x[1, 2, 5, :] = float("-inf")
        avg, mx, avg2 = poisoned((2, 3, 17, 24)), poisoned((2, 3, 17, 24)), poisoned((2, 3, 32, 23))
        mod.pools(x, out=(avg, mx, avg2))
        xd = x.double()
        check(f"avg_pool2d(3, 2, 1) trial {trial}", avg,
              F.avg_pool2d(xd, 3, stride=2, padding=1), 1e-5)
        check(f"avg_pool2d((2, 3), (1, 2)) trial {trial}", avg2,
              F.avg_pool2d(xd, (2, 3), stride=(1, 2)), 1e-5)
        want = F.max_pool2d(x, 3, stride=2, padding=1)
        same = (mx == want) | (torch.isnan(mx) & torch.isnan(want))
        assert bool(same.all()), f"max_pool2d trial {trial}: {int((~same).sum())} differ"


def test_pooling_rows_per_thread(generator):
    """Pools large enough that each thread computes 4 outputs down a column
    and loads the input rows their windows share once (pooling.mlir's
    row_pools): 253 output rows (the last group overlaps the one before),
    odd widths, padding; NaN and -inf in the windows."""
    import torch.nn.functional as F
    mod = load("pooling")
    for trial in range(2):
        x = data((4, 64, 255, 257), generator)
        y = data((8, 64, 255, 255), generator)
        if trial == 1:
            x[0, 0, 0, 0] = float("nan")
            x[3, 63, 254, :] = float("-inf")
            y[1, 2, 3, 4] = float("nan")
            y[7, 63, :, 254] = float("-inf")
        avg, mx = poisoned((4, 64, 253, 255)), poisoned((8, 64, 128, 128))
        mod.row_pools(x, y, out=(avg, mx))
        check(f"avg_pool2d(3, 1) 4 rows per thread, trial {trial}", avg,
              F.avg_pool2d(x.double(), 3, stride=1), 1e-5)
        want = F.max_pool2d(y, 3, stride=2, padding=1)
        same = (mx == want) | (torch.isnan(mx) & torch.isnan(want))
        assert bool(same.all()), f"max_pool2d trial {trial}: {int((~same).sum())} differ"


def test_pooling_columns_per_thread(generator):
    """1-D pools large enough that each thread computes 2 neighbouring
    outputs and loads the elements their windows share once (pooling.mlir's
    col_pools): 2049 outputs per row (the last group overlaps the one
    before), padding on both ends; NaN and -inf in the windows."""
    import torch.nn.functional as F
    mod = load("pooling")
    for trial in range(2):
        x = data((8, 64, 4099), generator)
        y = data((8, 64, 4097), generator)
        if trial == 1:
            x[0, 0, 0] = float("nan")
            x[7, 63, 4090:] = float("-inf")
            y[1, 2, 3] = float("nan")
            y[7, 63, -5:] = float("-inf")
        avg, mx = poisoned((8, 64, 2049)), poisoned((8, 64, 2049))
        mod.col_pools(x, y, out=(avg, mx))
        check(f"avg_pool1d(4, 2, 1) 2 outputs per thread, trial {trial}", avg,
              F.avg_pool1d(x.double(), 4, stride=2, padding=1), 1e-5)
        want = F.max_pool1d(y, 3, stride=2, padding=1)
        same = (mx == want) | (torch.isnan(mx) & torch.isnan(want))
        assert bool(same.all()), f"max_pool1d trial {trial}: {int((~same).sum())} differ"


def test_pooling_tiles_per_thread(generator):
    """Pools whose input rows load as 16-byte vectors, each thread computing
    4 x 4 outputs (pooling.mlir's tile_pools): 258 output columns (the last
    group's outputs past them not stored, its vectors kept in the row), 253
    rows (the last group overlapping the one before); NaN and -inf in the
    windows, at the rows' ends too."""
    import torch.nn.functional as F
    mod = load("pooling")
    for trial in range(2):
        x = data((4, 64, 255, 260), generator)
        y = data((4, 64, 130, 128), generator)
        if trial == 1:
            x[0, 0, 0, 0] = float("nan")
            x[3, 63, 254, :] = float("-inf")
            x[2, 5, :, 259] = float("nan")
            y[1, 2, 3, 4] = float("nan")
            y[3, 63, :, 127] = float("-inf")
        avg, mx = poisoned((4, 64, 253, 258)), poisoned((4, 64, 128, 126))
        mod.tile_pools(x, y, out=(avg, mx))
        check(f"avg_pool2d(3, 1) 4 x 4 outputs per thread, trial {trial}", avg,
              F.avg_pool2d(x.double(), 3, stride=1), 1e-5)
        want = F.max_pool2d(y, 3, stride=1)
        same = (mx == want) | (torch.isnan(mx) & torch.isnan(want))
        assert bool(same.all()), f"max_pool2d trial {trial}: {int((~same).sum())} differ"


def test_global_pooling(generator):
    """avg_pool2d(x, 4) and max_pool2d(x, 4) on 8 x 512 x 4 x 4 (a ResNet's
    last pool): one output per window, the window's loop innermost."""
    import torch.nn.functional as F
    mod = load("pooling")
    x = data((8, 512, 4, 4), generator)
    avg, mx = poisoned((8, 512, 1, 1)), poisoned((8, 512, 1, 1))
    mod.global_pools(x, out=(avg, mx))
    check("global avg_pool2d(4)", avg, F.avg_pool2d(x.double(), 4), 1e-5)
    assert torch.equal(mx, F.max_pool2d(x, 4)), "global max_pool2d differs"
