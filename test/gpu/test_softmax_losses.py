"""Softmax statistics on the GPU at the values that break them: rows with
NaN, +inf, -inf, rows all -inf, ties and a maximum that grows along the row,
against PyTorch in float64 (NaN where PyTorch gives NaN, else within the
users' 1e-4).

The kernels are the torch-mlir corpus's (test/Pipelines/Inputs, compiled by
scripts/build-gpu-artifacts.sh into .artifacts/corpus): logsumexp over rows
of 1000 (the maximum and the sum of exponentials in one reduction, each
thread holding its elements in registers, the last vector of 250 past the
row for some threads; torch.logsumexp's +inf for a row holding +inf),
log_softmax and softmax over rows of 100 and 128 (their output pass in the
same kernel), softmax over rows of 65537 (4 blocks of a cluster per row,
the statistics combined through distributed shared memory), and the losses
cross_entropy (dynamic batch), nll_loss of a log_softmax and a smoothed
cross_entropy with an ignore_index, over rows of 1000 classes."""

import pytest
import torch
import torch.nn.functional as F

from gpu_util import ARTIFACTS, check

import fuser

TOL = 1e-4
IGNORE = 7  # the smoothed export's ignore_index


def load_corpus(stem):
    ptx = ARTIFACTS / "corpus" / f"{stem}.ptx"
    if not ptx.exists():
        pytest.skip(f"{ptx} missing: run scripts/build-gpu-artifacts.sh")
    return fuser.load(fuser.Artifact.from_files(ptx, ptx.with_suffix(".manifest.json")))


def special_rows(rows, n, generator):
    """Fresh values of both signs, then in turn: a NaN, a +inf, a -inf, a
    row all -inf, a row of ties, a row that grows at every element, a NaN
    beside +inf."""
    x = torch.randn(rows, n, device="cuda", generator=generator) * 4
    inf, nan = float("inf"), float("nan")
    x[0, n // 3] = nan
    x[1, n - 1] = inf
    x[2, 5] = -inf
    x[3] = -inf
    x[4] = 2.5
    x[5] = torch.arange(n, device="cuda", dtype=torch.float32) * 0.01
    x[6, 0], x[6, n - 2] = inf, nan
    x[7, n - 1] = 1e4  # the maximum in the last vector, past other threads'
    return x


@pytest.mark.parametrize("rows", [8, 1027])
def test_logsumexp_special_values(rows, generator):
    mod = load_corpus("torch_logsumexp_rows")
    x = special_rows(rows, 1000, generator)
    t = torch.randint(0, 1000, (rows,), device="cuda", generator=generator)
    got = mod.main(x, t)
    want = torch.logsumexp(x.double(), dim=1) + t.double()
    check(f"logsumexp rows of 1000, {rows} rows", got, want, TOL)
    assert got[1].item() == float("inf") and got[3].item() == float("-inf")


@pytest.mark.parametrize("stem,n,fn", [
    ("torch_log_softmax_rows", 100, lambda x: torch.log_softmax(x, dim=-1)),
    ("torch_softmax_rows", 128, lambda x: torch.softmax(x, dim=-1)),
    # Rows of 65537: 4 blocks of a cluster per row, their statistics
    # combined through distributed shared memory.
    ("torch_softmax_long_rows", 65537, lambda x: torch.softmax(x, dim=-1)),
])
def test_softmax_rows_special_values(stem, n, fn, generator):
    mod = load_corpus(stem)
    x = special_rows(1027, n, generator)
    check(f"{stem} special values", mod.main(x), fn(x.double()), TOL)


def targets(rows, generator):
    t = torch.randint(0, 1000, (rows,), device="cuda", generator=generator)
    t[::5] = IGNORE  # ignored by the smoothed export, a class to the others
    t[-1] = 999  # the last class: the last vector of its row
    return t


@pytest.mark.parametrize("stem,rows,fn", [
    ("torch_cross_entropy", 1027, F.cross_entropy),
    ("torch_cross_entropy", 1, F.cross_entropy),
    ("torch_nll_log_softmax", 65, lambda x, t: F.nll_loss(F.log_softmax(x, 1), t)),
    ("torch_cross_entropy_smoothed", 65,
     lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1, ignore_index=IGNORE)),
])
def test_losses(stem, rows, fn, generator):
    mod = load_corpus(stem)
    x = torch.randn(rows, 1000, device="cuda", generator=generator) * 4
    if rows > 4:
        x[2] = 1.5  # ties
        x[3, 998] = 60.0  # one class far above the rest
    t = targets(rows, generator)
    got = mod.main(x, t)
    check(f"{stem} over {rows} rows", got, fn(x.double(), t), TOL)


@pytest.mark.parametrize("offset", [1000.0, -1000.0])
def test_smoothed_loss_far_from_zero(offset, generator):
    """The smoothed loss's row sum of log_softmax is split into sum(x) - n
    (m + log s) (fuser-split-shifted-sums): logits far from 0 beside their
    spread round that split at the logits' magnitude; the loss stays within
    the tolerance of float64."""
    mod = load_corpus("torch_cross_entropy_smoothed")
    x = torch.randn(65, 1000, device="cuda", generator=generator) + offset
    t = targets(65, generator)
    got = mod.main(x, t)
    want = F.cross_entropy(x.double(), t, label_smoothing=0.1, ignore_index=IGNORE)
    check(f"smoothed cross_entropy of logits near {offset}", got, want, TOL)
