"""Matrix-vector products against float64, NaN-poisoned outputs, the users'
1e-4 rule:
- fuser.matmul with a static N of at most 8 (fp64 tensor cores with an
  8-column tile, fuser-configure-kernels' narrow-N rule): M and K dynamic
  and odd, epilogue inputs along m and n, and no more error than cuBLAS
  SGEMM on the same inputs (bench/experiments/gemv_tiles.py: 4x less on
  8192 x 1 x 8192);
- linalg.matmul with an M or N of 1, as torch-mlir writes A @ x, nn.Linear
  (K, 1) and x @ A, through the whole pipeline: fuser-fuse-matmul leaves them
  to the reduction kernel (Inputs/matvec_linalg.mlir), with no more error
  than cuBLAS either."""

import math

import pytest
import torch

from gpu_util import check, load, poisoned, uniform

TOL = 1e-4
SHAPES = [(1, 1), (7, 37), (1000, 4096), (8193, 8195), (64, 1)]


pytestmark = pytest.mark.usefixtures("fp32_reference")




@pytest.mark.parametrize("m,k", SHAPES)
def test_matvec_linear(m, k, generator):
    mod = load("matvec_odd")
    x, w = uniform((m, k), generator), uniform((1, k), generator, 1 / math.sqrt(k))
    b, s = uniform((1,), generator), uniform((m,), generator, 3.0)
    out = poisoned((m, 1))
    mod.mv(x, w, b, s, out=out)
    exact = x.double() @ w.double().T
    ref = (exact + b.double()) * s.double()[:, None]
    ours = check(f"matvec {m}x1x{k}", out, ref, TOL)
    # cuBLAS's product with the same epilogue in fp32, as the kernel has it.
    cublas = float(((x @ w.T + b) * s[:, None]).double().sub(ref).abs().max())
    print(f"[gpu tests] matvec {m}x1x{k}: cuBLAS SGEMM max abs error {cublas:.3e}")
    # Below the two fp32 roundings of the epilogue (add, multiply) on the
    # largest result both are a coin flip: at small K neither has any
    # other error.
    floor = 2 * 2.0**-24 * float(ref.abs().max())
    assert ours <= max(cublas, floor), (ours, cublas, floor)


@pytest.mark.parametrize("m,k", SHAPES)
def test_three_columns(m, k, generator):
    mod = load("matvec_odd")
    x, w = uniform((m, k), generator), uniform((3, k), generator, 1 / math.sqrt(k))
    out = poisoned((m, 3))
    mod.mv3(x, w, out=out)
    check(f"matvec {m}x3x{k}", out, torch.clamp(x.double() @ w.double().T, min=0), TOL)


@pytest.mark.parametrize("m,k", SHAPES)
def test_vector_not_transposed(m, k, generator):
    mod = load("matvec_odd")
    x, v = uniform((m, k), generator), uniform((k, 1), generator, 1 / math.sqrt(k))
    out = poisoned((m, 1))
    mod.mv_nn(x, v, out=out)
    check(f"matvec nn {m}x1x{k}", out, x.double() @ v.double(), TOL)


LINALG_SHAPES = [(1, 1), (7, 37), (1000, 4096), (8193, 8195), (3, 100003)]


def no_worse_than_cublas(what, ours, cublas, ref, magnitudes):
    """At most twice cuBLAS's error, or one ulp of the largest sum of the
    terms' magnitudes (`magnitudes`: sum_k |a_k b_k| per output), where a
    long sum's rounding is a coin flip for any order: cuBLAS's gemv splits K
    differently."""
    floor = 2.0**-24 * float(magnitudes.max())
    print(f"[gpu tests] {what}: max abs error {ours:.3e}, cuBLAS SGEMM "
          f"{cublas:.3e}")
    assert ours <= max(2 * cublas, floor), (ours, cublas, floor)


@pytest.mark.parametrize("m,k", LINALG_SHAPES)
def test_linalg_matvec(m, k, generator):
    mod = load("matvec_linalg")
    x, v = uniform((m, k), generator), uniform((k, 1), generator, 1 / math.sqrt(k))
    out = poisoned((m, 1))
    mod.mv(x, v, out=out)
    ref = x.double() @ v.double()
    ours = check(f"linalg matvec {m}x1x{k}", out, ref, TOL)
    no_worse_than_cublas(f"linalg matvec {m}x1x{k}", ours,
                         float((x @ v).double().sub(ref).abs().max()), ref,
                         x.double().abs() @ v.double().abs())


@pytest.mark.parametrize("m,k", LINALG_SHAPES)
def test_linalg_linear_to_one(m, k, generator):
    mod = load("matvec_linalg")
    x = uniform((m, k), generator)
    w, b = uniform((1, k), generator, 1 / math.sqrt(k)), uniform((1,), generator)
    out = poisoned((m, 1))
    mod.linear_one(x, w, b, out=out)
    ref = x.double() @ w.double().T + b.double()
    ours = check(f"linalg Linear({k}, 1) batch {m}", out, ref, TOL)
    no_worse_than_cublas(f"linalg Linear({k}, 1) batch {m}", ours,
                         float(torch.nn.functional.linear(x, w, b).double()
                               .sub(ref).abs().max()), ref,
                         x.double().abs() @ w.double().abs().T + b.double().abs())


@pytest.mark.parametrize("n,k", LINALG_SHAPES)
def test_linalg_vector_times_matrix(n, k, generator):
    mod = load("matvec_linalg")
    u, a = uniform((1, k), generator), uniform((k, n), generator, 1 / math.sqrt(k))
    out = poisoned((1, n))
    mod.vecmat(u, a, out=out)
    ref = u.double() @ a.double()
    ours = check(f"linalg vecmat 1x{n}x{k}", out, ref, TOL)
    no_worse_than_cublas(f"linalg vecmat 1x{n}x{k}", ours,
                         float((u @ a).double().sub(ref).abs().max()), ref,
                         u.double().abs() @ a.double().abs())


def test_linalg_matvec_nan_and_inf(generator):
    """A NaN in a row of the matrix, an inf in another, an inf in the vector
    times a 0: PyTorch's pattern (NaN, inf, NaN where inf meets 0)."""
    mod = load("matvec_linalg")
    m, k = 64, 1000
    x, v = uniform((m, k), generator), uniform((k, 1), generator)
    x[3, 10] = float("nan")
    x[5, 20] = float("inf")
    v[7, 0] = 0.0
    x[9, 7] = float("inf")  # inf * 0: NaN
    out = poisoned((m, 1))
    mod.mv(x, v, out=out)
    ref = x @ v
    assert torch.equal(out.isnan(), ref.isnan())
    assert torch.equal(out.isinf(), ref.isinf())
    finite = ref.isfinite()
    torch.testing.assert_close(out[finite], ref[finite], atol=TOL, rtol=TOL)
