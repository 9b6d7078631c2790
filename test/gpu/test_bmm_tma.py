"""Batched products (torch.bmm) on 3xtf32 wgmma_tma, the fp32 default on
sm_90a (issue #17's batched class).

The kernel reads each operand through a 2-D tensor map of its batches' rows
stacked (B * M and B * N rows of K): a tile's rows past M (or N) read the
next batch's rows, which only feed outputs the epilogue must not store, and
the persistent blocks (at most 132) loop over every batch's tiles. torch.bmm's
B x K x N right operand is read as it is where K is a multiple of the k tile
(test_nmajor_b.py), else first copied to B x N x K by the tiled transpose.
Against float64 and torch.bmm (TF32 off) at the users' atol = rtol = 1e-4,
NaN-poisoned outputs (every element written), no write past the output
(a NaN batch after it stays NaN), odd sizes (no tile multiples), epilogue
inputs read per batch and shared, a dynamic batch (and M, N); bf16 operands
on the same kernel (128 x 256 tiles) at 1e-4 against their float64 product.
Artifacts: scripts/build-gpu-artifacts.sh (bmm_tma and bmm_tma_bf16 from
test/gpu/Inputs/bmm_tma*.mlir; gemm_bmm from scripts/build-mma-artifacts.sh).
"""

import json
import math

import pytest
import torch

from gpu_util import ARTIFACTS, check, load, poisoned, uniform
from gpu_util import check_both as _check_both

TOL = 1e-4  # the users' fp32 rule (atol = rtol = 1e-4)

pytestmark = pytest.mark.usefixtures("fp32_reference")


def manifest_functions(stem):
    path = ARTIFACTS / f"{stem}.manifest.json"
    if not path.exists():
        pytest.skip(f"{path} missing: run scripts/build-gpu-artifacts.sh")
    return {f["name"]: f for f in json.loads(path.read_text())["functions"]}




def run_guarded(fn, args, shape):
    """fn(*args, out=...) into the first shape[0] batches of a NaN buffer
    one batch longer; checks that the extra batch stays NaN (no store past
    the output) and returns the output."""
    big = poisoned((shape[0] + 1,) + tuple(shape[1:]))
    out = big[: shape[0]]
    fn(*args, out=out)
    assert bool(torch.isnan(big[shape[0]]).all()), "a store past the output"
    return out




def check_both(name, out, ref64, eager):
    """float64 and torch.bmm (fp32, TF32 off) at TOL."""
    return _check_both(name, out, ref64, eager, TOL, "torch.bmm")


def test_kernels_are_wgmma_tma():
    """Every batched matmul launch takes the two tensor maps (wgmma_tma),
    each a [B * rows, K] view; torch.bmm's layout launches its B copy
    first."""
    fns = manifest_functions("bmm_tma")
    for name in ["bmm_nt_odd", "bmm_nt_dyn", "bmm_copy"]:
        launches = fns[name]["launches"]
        kernels = [launch["kernel"] for launch in launches]
        expected = [f"{name}_matmul"]
        if name == "bmm_copy":
            expected.insert(0, f"{name}_pointwise")
        assert kernels == expected, kernels
        maps = [a for a in launches[-1]["args"] if a["kind"] == "tensor_map"]
        assert len(maps) == 2, launches[-1]["args"]
        assert all(a["shape"][1] == 1000 for a in maps), maps
    # 32 x 1024^3 torch.bmm: K a multiple of the k tile, so the kernel
    # reads B N-major (test_nmajor_b.py), no copy.
    gemm = manifest_functions("gemm_bmm")["forward"]["launches"]
    assert [launch["kernel"] for launch in gemm] == ["forward_matmul"]
    assert sum(a["kind"] == "tensor_map" for a in gemm[-1]["args"]) == 2


def test_odd_sizes_epilogue_inputs(generator):
    """3 x 200 x 129 x 1000, K-major B (no copy): 2 x 2 tiles per batch
    whose rows past 200 and 129 read the next batch's; per-batch bias,
    scale and addend, and an input shared by all batches. 3 trials."""
    mod = load("bmm_tma")
    bsz, m, n, k = 3, 200, 129, 1000
    for trial in range(3):
        x = uniform((bsz, m, k), generator)
        w = uniform((bsz, n, k), generator, 1.0 / math.sqrt(k))
        bias, s = uniform((bsz, n), generator), uniform((bsz,), generator, 2.0)
        r, f = uniform((m, n), generator), uniform((bsz, m, n), generator)
        out = run_guarded(mod.bmm_nt_odd, (x, w, bias, s, r, f), (bsz, m, n))

        def epilogue(acc):
            return (acc + bias[:, None, :].to(acc.dtype)) * s[:, None, None].to(acc.dtype) \
                + r.to(acc.dtype) + f.to(acc.dtype)

        ref = epilogue(x.double() @ w.double().transpose(1, 2))
        eager = epilogue(torch.bmm(x, w.transpose(1, 2)))
        check_both(f"bmm_nt_odd trial={trial}", out, ref, eager)


@pytest.mark.parametrize("bsz,m,n", [
    (1, 1, 1),       # one row of one batch: the box reads zeros past it
    (9, 37, 53),     # a 128-row tile spans several batches
    (3, 200, 129),
    (2, 300, 260),
    (40, 256, 256),  # 160 tiles on 132 blocks: blocks cross batches
    (7, 128, 128),   # tile multiples
])
def test_dynamic_batch(bsz, m, n, generator):
    """Batch, M and N dynamic (K = 1000): one artifact for every shape."""
    mod = load("bmm_tma")
    k = 1000
    x = uniform((bsz, m, k), generator)
    w = uniform((bsz, n, k), generator, 1.0 / math.sqrt(k))
    out = run_guarded(mod.bmm_nt_dyn, (x, w), (bsz, m, n))
    check_both(f"bmm_nt_dyn {bsz}x{m}x{n}x{k}", out,
               x.double() @ w.double().transpose(1, 2), torch.bmm(x, w.transpose(1, 2)))


@pytest.mark.parametrize("bsz", [1, 2, 3])
def test_torch_bmm_layout(bsz, generator):
    """torch.bmm's B x K x N B (copied B x N x K first: K = 1000 is no
    multiple of the k tile), 1100 x 1031 x 1000
    per batch (9 x 9 tiles, the last partial both ways), a dynamic batch,
    plus a per-batch, per-row addend."""
    mod = load("bmm_tma")
    m, n, k = 1100, 1031, 1000
    x = uniform((bsz, m, k), generator)
    w = uniform((bsz, k, n), generator, 1.0 / math.sqrt(k))
    c = uniform((bsz, m), generator)
    out = run_guarded(mod.bmm_copy, (x, w, c), (bsz, m, n))
    check_both(f"bmm_copy {bsz}x{m}x{n}x{k}", out,
               x.double() @ w.double() + c.double()[:, :, None],
               torch.bmm(x, w) + c[:, :, None])


def test_gemm_bmm_artifact(generator):
    """bench/suite.py's bmm class (32 x 1024^3, default options)."""
    mod = load("gemm_bmm")
    bsz, m, n, k = 32, 1024, 1024, 1024
    x = uniform((bsz, m, k), generator)
    w = uniform((bsz, k, n), generator, 1.0 / math.sqrt(k))
    out = poisoned((bsz, m, n))
    mod.forward(x, w, out=out)
    check_both("gemm_bmm 32x1024x1024x1024", out, x.double() @ w.double(), torch.bmm(x, w))


@pytest.mark.parametrize("bsz,m,n", [(1, 1, 1), (9, 37, 53), (3, 200, 129), (40, 256, 300)])
def test_bf16_operands(bsz, m, n, generator):
    """bf16 operands, f32 result, on wgmma_tma (128 x 256 tiles): against
    float64 of the same bf16 inputs (fp32 accumulation of exact products),
    with a per-batch bias over N."""
    mod = load("bmm_tma_bf16")
    k = 1000
    x = uniform((bsz, m, k), generator).to(torch.bfloat16)
    w = uniform((bsz, n, k), generator, 1.0 / math.sqrt(k)).to(torch.bfloat16)
    c = uniform((bsz, n), generator)
    out = run_guarded(mod.bmm_nt, (x, w, c), (bsz, m, n))
    ref = x.double() @ w.double().transpose(1, 2) + c.double()[:, None, :]
    check(f"bmm_tma_bf16 {bsz}x{m}x{n}x{k}", out, ref, TOL)
