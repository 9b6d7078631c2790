"""Numeric edge cases against PyTorch on the GPU (issue #6): NaN, +-Inf,
signed zeros and denormals through every supported pointwise op family, the
GEMM and the GEMM + GroupNorm kernel; zero-size dimensions; a tensor of more
than 2^31 elements."""

import math

import pytest
import torch
import torch.nn.functional as F

from gpu_util import load, poisoned

DENORMAL = 1e-40  # below FLT_MIN (1.18e-38)
SPECIAL = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, DENORMAL, -DENORMAL,
           1e-45, -1e-45, 1e38, -1e38, 88.0, -88.0, 100.0, -100.0, 1.0, -1.0, 0.5, 2.0, -3.0]

OPS = {
    "leaky": lambda x: F.leaky_relu(x, 0.01),
    "maximum": lambda x: torch.maximum(x, torch.full_like(x, 0.5)),
    "minimum": lambda x: torch.minimum(x, torch.full_like(x, 0.5)),
    "affine_div": lambda x: (x * 3.0 + 1.0) - x / 3.0,
    "exp": torch.exp,
    "log": torch.log,
    "tanh": torch.tanh,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "sigmoid": lambda x: 1.0 / (1.0 + torch.exp(-x)),
    "erf": torch.erf,
}

# Documented differences: exp and sigmoid lower to ex2.approx.ftz, so a
# result below FLT_MIN (a denormal in PyTorch) is flushed to zero: the
# absolute difference stays under 1.2e-38. Everything else matches
# PyTorch's special values exactly and its finite values to 2 ulp-ish.
ATOL = 1.2e-38


def same_special(name, out, ref, rtol=2e-6, atol=ATOL):
    """NaN where PyTorch has NaN, the same infinities (with sign), and
    finite values close; returns the max relative error on finite values."""
    nan_ok = torch.isnan(out) == torch.isnan(ref)
    assert bool(nan_ok.all()), f"{name}: NaN mismatch at inputs {torch.nonzero(~nan_ok).flatten().tolist()}"
    inf_ok = (torch.isinf(out) == torch.isinf(ref)) & (~torch.isinf(ref) | (out == ref))
    assert bool(inf_ok.all()), f"{name}: Inf mismatch at inputs {torch.nonzero(~inf_ok).flatten().tolist()}"
    fin = torch.isfinite(ref)
    assert torch.allclose(out[fin], ref[fin], rtol=rtol, atol=atol), \
        f"{name}: {out[fin].tolist()} vs {ref[fin].tolist()}"
    return float(((out[fin] - ref[fin]).abs() / ref[fin].abs().clamp_min(1e-30)).max())


@pytest.mark.parametrize("op", sorted(OPS))
def test_pointwise_special_values(op):
    mod = load("pointwise_special_values")
    x = torch.tensor(SPECIAL, device="cuda")
    out = poisoned(x.shape)
    getattr(mod, op)(x, out=out)
    err = same_special(op, out, OPS[op](x))
    print(f"[gpu tests] special values through {op}: classes match PyTorch, max rel err {err:.1e}")


def test_leaky_keeps_denormals():
    """No flush to zero in plain arithmetic: -1e-40 * 0.01 stays a denormal,
    bit for bit what PyTorch computes."""
    mod = load("pointwise_special_values")
    x = torch.tensor([DENORMAL, -DENORMAL, -1e-38, 1e-45], device="cuda")
    out = mod.leaky(x)
    assert torch.equal(out, F.leaky_relu(x, 0.01)), f"{out.tolist()}"
    assert float(out[1]) != 0.0


def test_gemm_nan_inf_rows(generator):
    """A NaN or Inf in one row of x reaches exactly the outputs PyTorch's
    fp32 GEMM + epilogue make NaN or Inf; the other rows stay correct."""
    mod = load("matmul_nt_odd")
    m, n, k = 6, 9, 13
    x = torch.randn(m, k, device="cuda", generator=generator)
    w = torch.randn(n, k, device="cuda", generator=generator) / math.sqrt(k)
    w[4, 0] = 0.0  # inf * 0 = NaN in that column
    b, s = torch.randn(n, device="cuda", generator=generator), torch.randn(m, device="cuda", generator=generator)
    r, kk = torch.randn(m, n, device="cuda", generator=generator), torch.randn((), device="cuda", generator=generator)
    x[1, 3] = float("nan")
    x[2, 0] = float("inf")
    x[3, 0] = -float("inf")
    out = poisoned((m, n))
    mod.forward(x, w, b, s, r, kk, out=out)
    ref = torch.clamp(x @ w.T + b, min=0) * s[:, None] + r * kk
    # Finite values: another summation order than cuBLAS, so the fp32 rule.
    same_special("gemm", out, ref, rtol=1e-5, atol=1e-5)
    print("[gpu tests] GEMM NaN/Inf rows: NaN and Inf positions match PyTorch")


# Each fp32 GEMM kernel and tf32 on the same bare x * W^T (K = 200, N = 256,
# dynamic M; scripts/build-mma-artifacts.sh, nan_inf_<kernel>): the split
# precisions' lo part of an Inf is inf - inf, and Inf times a zero lo part
# (any tf32-exact weight) is NaN: wgmma_tma's promotion drops non-finite
# cross terms, and 3xtf32 on mma.sync (one set of sums) zeroes an Inf's lo
# part and takes Inf hi parts as 0 in its cross terms.
NAN_INF_KERNELS = {"3xtf32": 1e-4, "tf32_2xbf16": 1e-4, "fp64": 1e-4, "ffma": 1e-4, "tf32": 2e-2,
                   "mma_3xtf32": 1e-4}


def special_gemm_inputs(generator, m=37, n=256, k=200):
    """x (m x k) and W (n x k), both signs, with NaN, +Inf and -Inf in rows
    1-3 of x, +Inf and -Inf in row 4 (NaN), a zero weight against the Infs
    (column 7: Inf * 0 = NaN) and an Inf in W (column 9)."""
    x = torch.randn(m, k, device="cuda", generator=generator)
    w = torch.randn(n, k, device="cuda", generator=generator) / math.sqrt(k)
    w[7, 0] = 0.0
    w[9, 20] = float("inf")
    x[1, 3] = float("nan")
    x[2, 0] = float("inf")
    x[3, 0] = -float("inf")
    x[4, 10], x[4, 11] = float("inf"), -float("inf")
    return x, w


@pytest.mark.parametrize("kernel", sorted(NAN_INF_KERNELS))
def test_gemm_nan_inf_every_kernel(kernel, generator):
    """PyTorch's NaN/Inf pattern: NaN, +Inf and -Inf in rows of x, +Inf and
    -Inf in one row (NaN), an Inf against a zero weight (NaN) and against a
    row of tf32-exact weights (zero lo parts: +-Inf), an Inf in W; the other
    outputs at the kernel's precision."""
    mod = load(f"nan_inf_{kernel}")
    x, w = special_gemm_inputs(generator)
    w[5, :] = 0.5  # tf32-exact: every lo part 0
    out = poisoned((x.shape[0], w.shape[0]))
    mod.forward(x, w, out=out)
    ref = x @ w.T
    tol = NAN_INF_KERNELS[kernel]
    same_special(f"gemm {kernel}", out, ref, rtol=tol, atol=tol)
    print(f"[gpu tests] GEMM {kernel}: {int(torch.isnan(ref).sum())} NaN and "
          f"{int(torch.isinf(ref).sum())} Inf outputs where PyTorch has them")


@pytest.mark.parametrize("kernel", ["3xtf32", "tf32_2xbf16", "mma_3xtf32"])
def test_gemm_overflow_across_promotions(kernel, generator):
    """Sums that overflow part-way through K (products of -+2^121, 200 of
    them, past FLT_MAX after 128; the split kernels promote every 64), also
    followed by chunks of the other sign: -Inf and +Inf as PyTorch, not NaN
    from the promotion's carried rounding error of the overflowing add. The
    finite outputs against float64 within 1e-5 of the sum of their
    products' magnitudes: row 5's sums of 2^61 w cancel, where PyTorch's own
    fp32 result is off by more than 1e-4."""
    mod = load(f"nan_inf_{kernel}")
    x = torch.randn(37, 200, device="cuda", generator=generator)
    w = torch.randn(256, 200, device="cuda", generator=generator) / math.sqrt(200)
    x[5, :] = 2.0 ** 61
    w[3, :] = -2.0 ** 60
    w[4, :] = 2.0 ** 60
    # Chunks of opposite signs after the overflow: 2^128 over K < 128, then
    # -2^122 (K 128-191, past 2^103 against the overflow), then 2^127.
    x[6, :] = 2.0 ** 61
    w[5, :128], w[5, 128:192], w[5, 192:] = 2.0 ** 60, -2.0 ** 55, 2.0 ** 63
    w[6, :] = -w[5, :]
    out = poisoned((37, 256))
    mod.forward(x, w, out=out)
    ref = x @ w.T
    assert float(ref[5, 3]) == -math.inf and float(ref[5, 4]) == math.inf
    assert float(ref[6, 5]) == math.inf and float(ref[6, 6]) == -math.inf
    same_special(f"gemm {kernel} overflow", out, ref, rtol=1.0, atol=math.inf)
    fin = torch.isfinite(ref)
    bound = 1e-5 * (x.double().abs() @ w.double().abs().T)
    err = (out.double() - x.double() @ w.double().T).abs()
    worst = float((err / bound)[fin].max())
    assert worst <= 1.0, f"gemm {kernel} overflow: error {worst:.2f}x the bound"
    print(f"[gpu tests] GEMM {kernel}: -Inf and +Inf where the sums overflow; "
          f"finite outputs at {worst:.3f}x of 1e-5 of their products' magnitudes")


HALF_KERNELS = [f"{t}_{k}" for t in ("bf16", "f16") for k in ("wgmma_tma", "wgmma", "mma")]


@pytest.mark.parametrize("kernel", HALF_KERNELS)
def test_gemm_nan_inf_half_kernels(kernel, generator):
    """The same pattern through every 16-bit kernel (bf16 and f16 operands,
    fp32 sums and result): against the fp32 product of the same 16-bit
    inputs, NaN, +-Inf and finite values alike."""
    mod = load(f"nan_inf_{kernel}")
    dtype = torch.bfloat16 if kernel.startswith("bf16") else torch.float16
    x, w = (t.to(dtype) for t in special_gemm_inputs(generator))
    out = poisoned((x.shape[0], w.shape[0]))
    mod.forward(x, w, out=out)
    ref = x.float() @ w.float().T
    same_special(f"gemm {kernel}", out, ref, rtol=1e-4, atol=1e-4)
    print(f"[gpu tests] GEMM {kernel}: {int(torch.isnan(ref).sum())} NaN and "
          f"{int(torch.isinf(ref).sum())} Inf outputs where PyTorch has them")


def test_gemm_zero_rows_and_columns(generator):
    mod = load("matmul_nt_odd")
    for m, n in [(0, 5), (4, 0), (0, 0)]:
        y = mod.forward(torch.randn(m, 3, device="cuda"), torch.randn(n, 3, device="cuda"),
                        torch.randn(n, device="cuda"), torch.randn(m, device="cuda"),
                        torch.randn(m, n, device="cuda"), torch.randn((), device="cuda"))
        assert y.shape == (m, n)


def test_linear_group_norm_zero_batch():
    mod = load("linear_group_norm_odd")
    y = mod.forward(torch.randn(0, 37, device="cuda"), torch.randn(80, 37, device="cuda"),
                    *(torch.randn(80, device="cuda") for _ in range(3)))
    assert y.shape == (0, 80)


def test_more_than_2_pow_31_elements():
    """W1's dynamic kernel on 65537 x 32768 = 2^31 + 32768 elements (8.6 GB
    in, 8.6 GB out): 64-bit offsets reach the end."""
    free, _ = torch.cuda.mem_get_info()
    rows, cols = 65537, 32768
    if free < 2 * rows * cols * 4 + (1 << 30):
        pytest.skip(f"needs {2 * rows * cols * 4 / 2**30:.1f} GiB of free GPU memory")
    mod = load("w1_leaky_relu_dynamic")
    x = torch.empty(rows, cols, device="cuda").uniform_(-1, 1)
    out = torch.full((rows, cols), float("nan"), device="cuda")
    mod.forward(x, out=out)
    # Chunked exact comparison (the same ops in the same order: bit for bit).
    for r0 in range(0, rows, 8192):
        r1 = min(rows, r0 + 8192)
        assert torch.equal(out[r0:r1], F.leaky_relu(x[r0:r1], 0.01)), f"rows {r0}..{r1}"
    assert rows * cols > 2**31
    print(f"[gpu tests] {rows}x{cols} = {rows * cols} elements (> 2^31): every element equals PyTorch's")
    del x, out
    torch.cuda.empty_cache()
