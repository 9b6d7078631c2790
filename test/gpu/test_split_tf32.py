"""The fp32 default on sm_90a: 3xtf32 on wgmma_tma with promoted sums.

Three tf32 products per step (A·B + A·B_lo + A_lo·B) on the TMA-fed wgmma
kernel, the tensor cores' sums added into fp32 registers every 64 K, 128
from K = 4096 (config promote_every). The users' rule is atol = rtol =
1e-4 against PyTorch's fp32; the bars here are stricter, beside cuBLAS on
the same inputs:
  - W2 and W3 with the users' inputs: the result's max error against
    float64 at most eager PyTorch's (cuBLAS SGEMM and its epilogue);
  - the bare GEMM at odd K and dynamic M (x in [-1, 1), which keeps the
    sums small and cuBLAS's error low): at most cuBLAS SGEMM's (issue 17's
    bar). The large term's tensor-core sums are kept apart from the small
    terms' (one truncating add per k step, not three), lo is rounded to
    nearest tf32, and each promotion's rounding error starts the next
    chunk's small sums: worst of 10 inputs 0.56 / 0.96 / 0.53x SGEMM at
    K = 200 / 1000 / 8192 (H100, 2026-11-24, bench/experiments/split_promotion.py),
    against 1.21x and 1.28x at K = 1000 and 8192 with plain promotion adds;
    every 128 K from K = 4096, worst of 20 inputs 0.86 / 0.91x at K = 4096 /
    8192 (2026-11-25).
Without promotion the tensor cores' truncating sums err 77x SGEMM at
K = 8192: the control compiled with promote-every=0 must fail the bar, so
these tests fail if promotion is switched off.
Artifacts: scripts/build-mma-artifacts.sh (split_*).
"""

import json

import pytest
import torch
import torch.nn.functional as F

from gpu_util import ARTIFACTS, check, linear_weights, load, poisoned

TOL = 1e-4  # the users' fp32 rule (atol = rtol = 1e-4)
# The bare GEMM's bar: cuBLAS SGEMM's max error on the same inputs (issue
# 17). Measured worst over 10 inputs: 0.96x at K = 1000 (H100, 2026-11-24);
# over 20, 0.86x at 4096 and 0.91x at 8192 promoted every 128 K (2026-11-25;
# the test compares worst against worst over 5). Without promotion it is
# about 30-80x, which test_promotion_is_what_keeps_it_accurate asserts stays
# caught.
SGEMM_FACTOR = 1.0


pytestmark = pytest.mark.usefixtures("fp32_reference")


def max_err(out, ref):
    return float((out.double() - ref).abs().max())


def gemm_errors(stem, m, k, trials, generator):
    """(fuser's, cuBLAS SGEMM's) worst max abs error against float64 over
    `trials` fresh inputs of nn.Linear's init at batch m, N = 256."""
    mod = load(stem)
    ours = cublas = 0.0
    for trial in range(trials):
        x = torch.rand(m, k, device="cuda", generator=generator) * 2 - 1
        w, _ = linear_weights(256, k, generator)
        out = poisoned((m, 256))
        mod.forward(x, w, out=out)
        ref = x.double() @ w.double().T
        check(f"{stem} m={m} trial={trial}", out, ref, TOL)
        ours = max(ours, max_err(out, ref))
        cublas = max(cublas, max_err(x @ w.T, ref))
    return ours, cublas


@pytest.mark.parametrize("stem", ["split_linear_k200", "split_linear_k1000", "split_linear_k8192",
                                  "w2_linear_scale_leaky", "w3_linear_groupnorm", "matmul_w2"])
def test_default_is_split_tf32_one_launch(stem):
    """The fp32 default for K-major operands with a TMA-copyable K: one
    wgmma_tma launch with three tf32 wgmma products per step."""
    ptx = ARTIFACTS / f"{stem}.ptx"
    if not ptx.exists():
        pytest.skip(f"{ptx} missing: run scripts/build-gpu-artifacts.sh")
    text = ptx.read_text()
    assert "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32" in text
    assert "cp.async.bulk.tensor" in text
    launches = json.loads((ARTIFACTS / f"{stem}.manifest.json").read_text())
    assert len(launches["functions"][0]["launches"]) == 1


@pytest.mark.parametrize("k", [200, 1000, 4096, 8192, 8193])
@pytest.mark.parametrize("m", [1, 7, 1000, 1027])
def test_gemm_at_least_as_accurate_as_sgemm(k, m, generator):
    """Dynamic batch (1, 7, tile multiples and not), K = 200 and 1000 (not
    multiples of the promotion interval), 4096 (the shortest K promoted
    every 128), 8192 (W2's), 8193 (no TMA: fp64 tensor cores). At batch >=
    1000 (enough outputs for a stable maximum) fuser's worst error over 5
    trials is at most cuBLAS SGEMM's."""
    ours, cublas = gemm_errors(f"split_linear_k{k}", m, k, 5 if m >= 1000 else 2, generator)
    print(f"[gpu tests] split K={k} m={m}: max |GEMM - float64| fuser {ours:.3e}, "
          f"cuBLAS SGEMM {cublas:.3e}")
    if m >= 1000:
        assert ours <= SGEMM_FACTOR * cublas, (ours, cublas)


def test_promotion_is_what_keeps_it_accurate(generator):
    """The control: the same GEMM compiled with promote-every=0 misses the
    bar at K = 8192, so the test above catches promotion switched off."""
    ours, cublas = gemm_errors("split_linear_k8192_nopromote", 1024, 8192, 3, generator)
    print(f"[gpu tests] split K=8192 without promotion: fuser {ours:.3e}, "
          f"cuBLAS SGEMM {cublas:.3e}")
    assert ours > SGEMM_FACTOR * cublas, (ours, cublas)


def w2_ref(x, w, b):
    return F.leaky_relu((x.double() @ w.double().T + b.double()) * 2.0, 0.1)


def w3_ref(x, w, b, gamma, beta):
    lin = x.double() @ w.double().T + b.double()
    y = F.group_norm(lin, 512, gamma.double(), beta.double(), eps=1e-5)
    y = F.leaky_relu(y, 0.01)
    return y + y


def w2_w3_errors(w2_stem, w3_stem, label, generator):
    """W2 and W3 with the users' inputs (torch.rand x, nn.Linear init,
    GroupNorm's affine at 1 and 0 as nn.GroupNorm starts, and perturbed),
    5 trials, each at the 1e-4 rule against PyTorch fp32: the worst
    {name: (fuser's, eager's)} max error against float64."""
    w, b = linear_weights(8192, 8192, generator)
    w2, w3 = load(w2_stem), load(w3_stem)
    gn = torch.nn.GroupNorm(512, 8192).cuda()
    worst = {"w2": [0.0, 0.0], "w3": [0.0, 0.0]}
    for trial in range(5):
        x = torch.rand(1024, 8192, device="cuda", generator=generator)
        gamma = torch.ones(8192, device="cuda") if trial < 2 else \
            1 + 0.1 * torch.randn(8192, device="cuda", generator=generator)
        beta = torch.zeros(8192, device="cuda") if trial < 2 else \
            0.1 * torch.randn(8192, device="cuda", generator=generator)
        out = poisoned((1024, 8192))
        w2.forward(x, w, b, out=out)
        ref = w2_ref(x, w, b)
        eager = F.leaky_relu(F.linear(x, w, b) * 2.0, 0.1)
        check(f"w2 {label} trial={trial}", out, ref, TOL)
        assert torch.allclose(out, eager, atol=TOL, rtol=TOL), "W2 fails the 1e-4 rule vs PyTorch"
        worst["w2"] = [max(worst["w2"][0], max_err(out, ref)), max(worst["w2"][1], max_err(eager, ref))]
        out3 = poisoned((1024, 8192))
        w3.forward(x, w, b, gamma, beta, out=out3)
        ref3 = w3_ref(x, w, b, gamma, beta)
        with torch.no_grad():
            gn.weight.copy_(gamma)
            gn.bias.copy_(beta)
            y = F.leaky_relu(gn(F.linear(x, w, b)), 0.01)
            eager3 = y + y
        check(f"w3 {label} trial={trial}", out3, ref3, TOL)
        assert torch.allclose(out3, eager3, atol=TOL, rtol=TOL), "W3 fails the 1e-4 rule vs PyTorch"
        worst["w3"] = [max(worst["w3"][0], max_err(out3, ref3)),
                       max(worst["w3"][1], max_err(eager3, ref3))]
    for name, (ours, eager) in worst.items():
        print(f"[gpu tests] {name} {label} over 5 trials: max |out - float64| fuser {ours:.3e}, "
              f"eager PyTorch {eager:.3e}")
    return worst


def test_w2_w3_users_inputs(generator):
    """3xtf32: W2 and W3 at the 1e-4 rule, and an error against float64 at
    most eager PyTorch's (cuBLAS SGEMM, then its epilogue)."""
    worst = w2_w3_errors("w2_linear_scale_leaky", "w3_linear_groupnorm", "3xtf32", generator)
    for name, (ours, eager) in worst.items():
        assert ours <= eager, (name, ours, eager)


# tf32_2xbf16 (fp32-kernel=tf32_2xbf16): the cross terms in bf16 err about
# 2^-19 per product, 2-4x cuBLAS SGEMM's error on the bare GEMM (H200,
# 2026-11-30, bench/experiments/split_variants.py: 2.16 / 3.84 / 2.00x at K
# = 200 / 1000 / 8192, promoted every 256 K); the bar leaves room for other
# inputs, and dropping
# a cross term (tf32's 2^-11) misses it a hundredfold.
BF16_CROSS_FACTOR = 6.0


@pytest.mark.parametrize("k", [200, 1000, 8192])
@pytest.mark.parametrize("m", [7, 1000, 1027])
def test_tf32_2xbf16_gemm_accuracy(k, m, generator):
    stem = f"split_2xbf16_linear_k{k}"
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" in \
        (ARTIFACTS / f"{stem}.ptx").read_text()
    ours, cublas = gemm_errors(stem, m, k, 5 if m >= 1000 else 2, generator)
    print(f"[gpu tests] tf32_2xbf16 K={k} m={m}: max |GEMM - float64| fuser {ours:.3e}, "
          f"cuBLAS SGEMM {cublas:.3e} ({ours / cublas:.2f}x)")
    if m >= 1000:
        assert ours <= BF16_CROSS_FACTOR * cublas, (ours, cublas)


def test_tf32_2xbf16_w2_w3_users_inputs(generator):
    """tf32_2xbf16: W2 and W3 at the 1e-4 rule; against float64 within
    twice eager PyTorch's error."""
    worst = w2_w3_errors("mma_w2_tf32_2xbf16", "w3_tf32_2xbf16", "tf32_2xbf16", generator)
    for name, (ours, eager) in worst.items():
        assert ours <= 2 * eager, (name, ours, eager)


@pytest.mark.parametrize("m", [1, 7, 129, 1027])
def test_bulk_copied_rows(m, generator):
    """N = 132: 3xtf32's results staged in shared memory and copied out a
    row at a time, the last column tile 4 wide and the last row tile
    clipped at M (the row after the output stays NaN); as accurate as
    cuBLAS SGEMM against float64."""
    k, n = 200, 132
    x = torch.rand(m, k, device="cuda", generator=generator) * 2 - 1
    w, _ = linear_weights(n, k, generator)
    full = poisoned((m + 1, n))
    load("split_linear_n132").forward(x, w, out=full[:m])
    ref = x.double() @ w.double().T
    check(f"split_linear_n132 m={m}", full[:m], ref, TOL)
    assert max_err(full[:m], ref) <= max(max_err(x @ w.T, ref), 1e-6) * 1.5
    assert bool(torch.isnan(full[m]).all()), "a row past M was written"
