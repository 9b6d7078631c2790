"""The TMA-fed, warp-specialized wgmma kernel (strategy wgmma_tma: bf16's
default for K-major operands with a static K; tf32 with
tensor-core-kernel=wgmma-tma) against float64 references.

Artifacts (scripts/build-mma-artifacts.sh): mma_w2_bf16 and mma_w2_tf32_tma
(W2), mma_nt_k200_bf16 and mma_nt_k200_tf32_tma (K = 200, not a multiple of
BK; dynamic M and N; every epilogue read kind).
"""

import json
import math

import pytest
import torch
import torch.nn.functional as F

import fuser
from gpu_util import ARTIFACTS, check, linear_weights, load, randn

TOL = 1e-2  # tf32 / bf16: the users' reduced-precision rule


def poisoned(shape, dtype=torch.float32):
    return torch.full(shape, float("nan"), device="cuda", dtype=dtype)


@pytest.mark.parametrize("stem", ["mma_w2_bf16", "mma_w2_tf32_tma",
                                  "mma_nt_k200_bf16", "mma_nt_k200_tf32_tma"])
def test_one_launch_with_tensor_maps(stem):
    """One launch, 384 threads (a producer warpgroup), A and B as tensor maps."""
    path = ARTIFACTS / f"{stem}.manifest.json"
    if not path.exists():
        pytest.skip(f"{path} missing: run scripts/build-gpu-artifacts.sh")
    launches = json.loads(path.read_text())["functions"][0]["launches"]
    assert len(launches) == 1, launches
    maps = [a for a in launches[0]["args"] if a["kind"] == "tensor_map"]
    assert [m["buffer"] for m in maps] == [0, 1], launches[0]["args"]
    assert launches[0]["block"] == [384, 1, 1]


def w2_ref(x, w, b):
    return F.leaky_relu((x.double() @ w.double().T + b.double()) * 2.0, 0.1)


def test_w2_tf32_tma(generator):
    """W2 in tf32 on wgmma_tma: within 1e-2 over 5 fresh trials. wgmma
    truncates f32 operands to tf32 where cuBLAS rounds them: about 2.7x
    PyTorch's TF32 error on an H100 (2.5e-3 against 9.2e-4), bounded at 4x."""
    mod = load("mma_w2_tf32_tma")
    w, b = linear_weights(8192, 8192, generator)
    prev = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        for trial in range(5):
            x = torch.rand(1024, 8192, device="cuda", generator=generator)
            out = poisoned((1024, 8192))
            mod.forward(x, w, b, out=out)
            ref = w2_ref(x, w, b)
            err = check(f"w2 tf32 tma trial={trial}", out, ref, TOL)
            torch_err = float((F.leaky_relu((x @ w.T + b) * 2.0, 0.1).double() - ref).abs().max())
            print(f"[gpu tests] w2 tf32 tma trial={trial}: PyTorch TF32 max abs error {torch_err:.3e}")
            assert err <= 4 * torch_err + 1e-6, (err, torch_err)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev


def nt_ref(x, w, b, s, r, k):
    acc = x.double() @ w.double().T
    return torch.clamp(acc + b.double(), min=0) * s.double()[:, None] + r.double() * k.double()


# M and N below, at and past the 128 x 256 tile; M = 0 launches nothing.
K200_SHAPES = [(1, 1), (5, 7), (130, 129), (129, 257), (256, 512), (300, 600), (0, 8)]


@pytest.mark.parametrize("m,n", K200_SHAPES)
@pytest.mark.parametrize("dtype", ["bf16", "tf32"])
def test_nt_k200(m, n, dtype, generator):
    """Static K = 200: the last k tile's box reaches past K and reads zeros;
    boxes past M and N too. bf16 operands are exact in the reference, so
    only accumulation order differs. tf32: wgmma truncates each operand to
    tf32 (relative error below 2^-10), so each element of x * W^T is off by
    at most 2^-9 (|x| * |W|^T) plus fp32 rounding, and this epilogue scales
    that by |s| (relu is 1-Lipschitz): checked element by element (an
    allclose at 1e-2 can fail where s is large and r * k cancels)."""
    k = 200
    x, w = randn((m, k), generator, 1.0), randn((n, k), generator, 1.0 / math.sqrt(k))
    if dtype == "bf16":
        x, w = x.to(torch.bfloat16), w.to(torch.bfloat16)
    b, s = randn((n,), generator), randn((m,), generator)
    r, kk = randn((m, n), generator), randn((), generator)
    out = poisoned((m, n))
    stem = "mma_nt_k200_bf16" if dtype == "bf16" else "mma_nt_k200_tf32_tma"
    load(stem).forward(x, w, b, s, r, kk, out=out)
    ref = nt_ref(x, w, b, s, r, kk)
    if dtype == "bf16":
        err = check(f"nt_k200 {dtype} {m}x{n}", out, ref, TOL)
        assert err < 1e-3, "bf16 operands with fp32 accumulation should be fp32-accurate"
        return
    err = check(f"nt_k200 {dtype} {m}x{n}", out, ref, 1.0)
    spread = x.abs().double() @ w.abs().double().T
    bound = s.abs().double()[:, None] * 2.0**-9 * spread * 1.05 + 1e-5 * ref.abs() + 1e-5
    excess = (out.double() - ref).abs() - bound
    worst = float(excess.max()) if excess.numel() else -1.0
    print(f"[gpu tests] nt_k200 tf32 {m}x{n}: max error {err:.3e}, "
          f"worst margin to the truncation bound {worst:.3e}")
    assert worst <= 0, f"an element exceeds the tf32 truncation bound by {worst:.3e}"


def test_misaligned_operand_is_refused(generator):
    """TMA needs 16-byte aligned bases: a view 2 bytes in raises a readable
    error before anything is launched."""
    mod = load("mma_nt_k200_bf16")
    m, n, k = 4, 8, 200
    flat = torch.zeros(m * k + 1, device="cuda", dtype=torch.bfloat16)
    x = flat[1:].view(m, k)
    w = torch.zeros(n, k, device="cuda", dtype=torch.bfloat16)
    args = (x, w, torch.zeros(n, device="cuda"), torch.zeros(m, device="cuda"),
            torch.zeros(m, n, device="cuda"), torch.zeros((), device="cuda"))
    with pytest.raises(fuser.FuserError, match="align"):
        mod.forward(*args, out=poisoned((m, n)))


def bf16_out_ref(x, w, b, r):
    """The epilogue's steps as the kernel rounds them: the fp32 product to
    bf16, then each bf16 add (exact in fp32, one rounding to bf16). Also
    the bound on the kernel's distance to it: its fp32 sum of K products
    may round to the bf16 neighbour of the float64 sum's rounding (one ulp:
    at most 2^-7 of the value, twice that across a power of two), and each
    later rounding may follow."""
    acc = (x.double() @ w.double().T).to(torch.bfloat16)
    biased = (acc.float() + b.float()).to(torch.bfloat16)
    a = torch.clamp(biased, min=0)
    out = (a.float() + r.float()).to(torch.bfloat16).double()
    ulps = (acc.double().abs() + biased.double().abs() + out.abs()) * 2.0**-6
    return out, ulps


@pytest.mark.parametrize("n", [264, 260])
@pytest.mark.parametrize("m", [1, 5, 127, 129, 300, 1000])
def test_bf16_result_rows(m, n, generator):
    """A bf16 result: with N = 264 (a multiple of 8) each warpgroup stages
    its rows in shared memory and bulk copies write whole rows, the last
    column tile 8 wide and the last row tile clipped at M; N = 260 stores
    from registers. The row after the output stays NaN: nothing is written
    past M."""
    k = 200
    x = randn((m, k), generator, 1.0).to(torch.bfloat16)
    w = randn((n, k), generator, 1.0 / math.sqrt(k)).to(torch.bfloat16)
    b, r = randn((n,), generator, 1.0).to(torch.bfloat16), randn((m, n), generator, 1.0).to(torch.bfloat16)
    full = poisoned((m + 1, n), torch.bfloat16)
    load(f"mma_nt_bf16_out_n{n}").forward(x, w, b, r, out=full[:m])
    ref, ulps = bf16_out_ref(x, w, b, r)
    err = check(f"bf16 result {m}x{n}", full[:m], ref, 1.0)
    excess = float(((full[:m].double() - ref).abs() - ulps).max())
    print(f"[gpu tests] bf16 result {m}x{n}: max error {err:.3e}, "
          f"worst margin to a rounding flip per step {excess:.3e}")
    assert excess <= 0, f"an element is more than a rounding flip per step off, by {excess:.3e}"
    assert bool(torch.isnan(full[m]).all()), "a row past M was written"
