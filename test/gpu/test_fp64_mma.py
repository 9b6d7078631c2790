"""fp32 matmuls on fp64 tensor cores (MmaGemmKernel, config precision "fp64":
the fp32 kernel on sm_90, and on sm_90a where 3xtf32 on wgmma_tma does not
apply) against float64 references.

f32 operands are widened to f64 exactly and multiplied and summed in fp64,
so the result is the float64 product rounded once to f32 (then the fp32
epilogue): far inside the users' 1e-4 rule, and closer to float64 than any
fp32-accumulating kernel. Inputs: W2 (examples/, compiled with the default
options), test/gpu/Inputs/matmul_w2.mlir and test/gpu/Inputs/mma/*.mlir as
mma_<stem>_fp64 (scripts/build-mma-artifacts.sh).
"""

import json
import math

import pytest
import torch
import torch.nn.functional as F

from gpu_util import ARTIFACTS, check, linear_weights, load, poisoned, randn

TOL = 1e-4  # the users' fp32 rule (atol = rtol = 1e-4)
# Round-off of an f32 result (2^-24 relative) after an f64 sum, plus the
# fp32 epilogue's few operations: anything near fp32 GEMM error (about 1e-6
# relative for K = 8192) means the products or sums were not done in f64.
F64_REL = 2e-6


def w2_ref(x, w, b):
    return F.leaky_relu((x.double() @ w.double().T + b.double()) * 2.0, 0.1)


def rel_err(out, ref):
    return float(((out.double() - ref).abs() / (ref.abs() + 1e-3)).max())


@pytest.mark.parametrize("stem", ["mma_w2_fp64", "mma_matmul_w2_fp64"])
def test_fp64_kernel_one_launch(stem):
    """fp32-kernel=fp64 gives W2 the fp64 tensor-core kernel, one launch."""
    ptx = ARTIFACTS / f"{stem}.ptx"
    if not ptx.exists():
        pytest.skip(f"{ptx} missing: run scripts/build-gpu-artifacts.sh")
    assert "mma.sync.aligned.m16n8k8.row.col.f64" in ptx.read_text()
    launches = json.loads((ARTIFACTS / f"{stem}.manifest.json").read_text())
    assert len(launches["functions"][0]["launches"]) == 1


@pytest.mark.parametrize("batch", [1024, 77])
def test_w2_example(batch, generator):
    """W2 from linalg, fp32-kernel=fp64: 5 fresh trials at batch 1024 (the
    users' rule), and a dynamic batch that is no tile multiple (the same
    W2 with a dynamic batch, test/gpu/Inputs/matmul_w2.mlir)."""
    mod = load("mma_w2_fp64" if batch == 1024 else "mma_matmul_w2_fp64")
    w, b = linear_weights(8192, 8192, generator)
    worst = 0.0
    for trial in range(5 if batch == 1024 else 1):
        x = torch.rand(batch, 8192, device="cuda", generator=generator) * 2 - 1
        out = poisoned((batch, 8192))
        mod.forward(x, w, b, out=out)
        ref = w2_ref(x, w, b)
        worst = max(worst, check(f"w2 fp64 batch={batch} trial={trial}", out, ref, TOL))
        assert rel_err(out, ref) < F64_REL, rel_err(out, ref)
        ref32 = F.leaky_relu(F.linear(x, w, b) * 2.0, 0.1)
        assert torch.allclose(out, ref32, atol=TOL, rtol=TOL), "fails the 1e-4 rule vs PyTorch fp32"
    print(f"[gpu tests] w2 fp64 batch={batch}: worst max abs error {worst:.3e}")


def nt_ref(x, w, b, s, r, k):
    acc = x.double() @ w.double().T
    return torch.clamp(acc + b.double(), min=0) * s.double()[:, None] + r.double() * k.double()


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (5, 7, 3), (130, 129, 37), (257, 131, 1000),
                                   (64, 128, 64), (3, 300, 4097), (200, 264, 520), (129, 136, 8)])
def test_nt_odd(m, n, k, generator):
    """x * W^T, every size dynamic, odd shapes (K % 4 != 0 takes the
    predicated-load path), every epilogue read kind."""
    x, w = randn((m, k), generator, 1.0), randn((n, k), generator, 1.0 / math.sqrt(k))
    b, s = randn((n,), generator), randn((m,), generator)
    r, kk = randn((m, n), generator), randn((), generator)
    ref = nt_ref(x, w, b, s, r, kk)
    out = poisoned((m, n))
    load("mma_nt_odd_fp64").forward(x, w, b, s, r, kk, out=out)
    check(f"nt_odd fp64 {m}x{n}x{k}", out, ref, TOL)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (63, 65, 9), (200, 129, 130), (64, 64, 64),
                                   (130, 264, 520)])
def test_nn_odd(m, n, k, generator):
    """x * B with B K x N (no transpose) and a transposed epilogue read."""
    x, bm = randn((m, k), generator, 1.0), randn((k, n), generator, 1.0 / math.sqrt(k))
    t = randn((n, m), generator)
    out = poisoned((m, n))
    load("mma_nn_odd_fp64").forward(x, bm, t, out=out)
    check(f"nn_odd fp64 {m}x{n}x{k}", out, x.double() @ bm.double() - t.double().T, TOL)


def test_exact_sums(generator):
    """Sums an fp32 accumulator cannot hold: products +2^24, then K-2 ones,
    then -2^24. Every +1 is lost next to 2^24 in fp32 (FFMA gives 0); fp64
    products and sums give K - 2 exactly."""
    m, n, k = 16, 8, 1000
    x = torch.ones(m, k, device="cuda")
    w = torch.ones(n, k, device="cuda")
    x[:, 0], x[:, -1], w[:, 0], w[:, -1] = 2.0**12, -(2.0**12), 2.0**12, 2.0**12
    zeros = torch.zeros
    out = poisoned((m, n))
    load("mma_nt_odd_fp64").forward(x, w, zeros(n, device="cuda"), torch.ones(m, device="cuda"),
                                    zeros(m, n, device="cuda"), zeros((), device="cuda"), out=out)
    assert torch.all(out == k - 2), out.unique()


def test_special_values(generator):
    """Zeros of both signs, infinities, NaNs (0 * inf too), f32 extremes
    and denormals come out as the float64 product of the same f32 values."""
    m, n, k = 40, 24, 70
    x, w = randn((m, k), generator, 1.0), randn((n, k), generator, 1.0 / math.sqrt(k))
    x[0, 3], x[1, 5], x[2, 7] = float("inf"), float("-inf"), float("nan")
    x[3, :] = 0.0
    x[4, :] = -0.0
    x[5, 0], x[6, 1] = 3.0e38, -1.0e-40  # near f32 max; a denormal
    x[7, 2] = 1.2e-38  # smallest normals survive exactly
    w[0, 9] = float("inf")  # x[3] * w[0]: 0 * inf = NaN
    zeros = torch.zeros
    out = poisoned((m, n))
    load("mma_nt_odd_fp64").forward(x, w, zeros(n, device="cuda"), torch.ones(m, device="cuda"),
                                    zeros(m, n, device="cuda"), zeros((), device="cuda"), out=out)
    ref = torch.clamp(x.double() @ w.double().T, min=0)
    assert torch.equal(torch.isnan(out), torch.isnan(ref)), "NaN positions differ"
    assert torch.equal(torch.isinf(out), torch.isinf(ref.float())), "Inf positions differ"
    finite = torch.isfinite(ref.float())
    check("fp64 special values (finite part)", out[finite].reshape(1, -1),
          ref[finite].reshape(1, -1), TOL)


def test_zero_k(generator):
    """K = 0: the product is empty, so the epilogue sees zeros."""
    t = randn((4, 3), generator)
    y = load("mma_nn_odd_fp64").forward(
        torch.empty((3, 0), device="cuda"), torch.empty((0, 4), device="cuda"), t)
    check("nn fp64 K=0", y, -t.double().T, TOL)
