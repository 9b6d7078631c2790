"""Matrix-vector products (a static N of at most 8: fp64 tensor cores with
an 8-column tile, fuser-configure-kernels' narrow-N rule) against float64:
M and K dynamic and odd, epilogue inputs along m and n, NaN-poisoned
outputs, the users' 1e-4 rule, and no more error than cuBLAS SGEMM on the
same inputs (bench/experiments/gemv_tiles.py: 4x less on 8192 x 1 x 8192)."""

import math

import pytest
import torch

from gpu_util import check, load, poisoned

TOL = 1e-4
SHAPES = [(1, 1), (7, 37), (1000, 4096), (8193, 8195), (64, 1)]


pytestmark = pytest.mark.usefixtures("fp32_reference")


def uniform(shape, generator, scale=1.0):
    return (torch.rand(shape, device="cuda", generator=generator) * 2 - 1) * scale


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
