"""fp32 products whose K is not a multiple of 4 (rows of K not 16-byte
multiples apart, which TMA cannot read): the configuration step copies both
operands with K padded with zeros (B K-major first where it is N-major) and
3xtf32 on wgmma_tma computes the padded product
(test/gpu/Inputs/matmul_padded_k.mlir; gemm_unaligned_* from
scripts/build-mma-artifacts.sh).

Against float64 and eager PyTorch (TF32 off) at the users' atol = rtol =
1e-4, NaN-poisoned outputs, fresh inputs of both signs, 3 trials each. A pad
that reads past a row, or whose zeros are not zeros, fails here.
"""

import json
import math

import pytest
import torch

from gpu_util import ARTIFACTS, check, check_both, load, poisoned, uniform

TOL = 1e-4  # the users' fp32 rule (atol = rtol = 1e-4)

pytestmark = pytest.mark.usefixtures("fp32_reference")






def kernels(stem, fn):
    path = ARTIFACTS / f"{stem}.manifest.json"
    if not path.exists():
        pytest.skip(f"{path} missing: run scripts/build-gpu-artifacts.sh")
    fns = {f["name"]: f for f in json.loads(path.read_text())["functions"]}
    return [launch["kernel"] for launch in fns[fn]["launches"]]


def test_products_run_on_wgmma_tma():
    """Each product ends in one GEMM kernel reading both operands by TMA
    (tensor-map arguments), not the fp64 fallback."""
    path = ARTIFACTS / "matmul_padded_k.manifest.json"
    if not path.exists():
        pytest.skip(f"{path} missing: run scripts/build-gpu-artifacts.sh")
    for fn in json.loads(path.read_text())["functions"]:
        gemm = fn["launches"][-1]
        assert gemm["kernel"].endswith("_matmul"), gemm["kernel"]
        maps = [a for a in gemm["args"] if a["kind"] == "tensor_map"]
        assert len(maps) >= 2, f"{fn['name']}: {len(maps)} tensor maps"


@pytest.mark.parametrize("trial", range(3))
def test_mm_nn(trial, generator):
    mod = load("matmul_padded_k")
    a = uniform((1500, 1023), generator)
    b = uniform((1023, 1100), generator, 1 / math.sqrt(1023))
    out = poisoned((1500, 1100))
    mod.mm_nn(a, b, out=out)
    check_both(f"mm_nn 1500x1100x1023 trial={trial}", out, a.double() @ b.double(), a @ b)


@pytest.mark.parametrize("trial", range(3))
def test_linear_relu_prologue(trial, generator):
    mod = load("matmul_padded_k")
    x = uniform((1100, 1021), generator, 3.0)
    w = uniform((1300, 1021), generator, 1 / math.sqrt(1021))
    bias = uniform((1300,), generator)
    out = poisoned((1100, 1300))
    mod.linear_relu_prologue(x, w, bias, out=out)
    check_both(f"linear_relu_prologue 1100x1300x1021 trial={trial}", out,
               x.double().relu() @ w.double().T + bias.double(),
               torch.nn.functional.linear(x.relu(), w, bias))


@pytest.mark.parametrize("trial", range(3))
def test_mm_tn(trial, generator):
    mod = load("matmul_padded_k")
    x = uniform((1025, 1200), generator)
    w = uniform((1100, 1025), generator, 1 / math.sqrt(1025))
    out = poisoned((1200, 1100))
    mod.mm_tn(x, w, out=out)
    check_both(f"mm_tn 1200x1100x1025 trial={trial}", out,
               x.double().T @ w.double().T, x.T @ w.T)


@pytest.mark.parametrize("bsz", [1, 3])
def test_bmm_dynamic_batch(bsz, generator):
    mod = load("matmul_padded_k")
    a = uniform((bsz, 1100, 1022), generator)
    b = uniform((bsz, 1022, 1200), generator, 1 / math.sqrt(1022))
    out = poisoned((bsz, 1100, 1200))
    mod.bmm(a, b, out=out)
    check_both(f"bmm {bsz}x1100x1200x1022", out, a.double() @ b.double(), torch.bmm(a, b))


def test_special_values_in_pitch_tail(generator):
    """NaN and Inf in the last column of K (beside the padding) reach only
    the outputs PyTorch gives NaN or Inf, and large values in the last
    column are summed, not dropped."""
    mod = load("matmul_padded_k")
    a = uniform((1500, 1023), generator)
    b = uniform((1023, 1100), generator, 1 / math.sqrt(1023))
    a[5, -1] = float("nan")
    a[7, -1] = float("inf")
    a[9, -1] = 1e6
    out = poisoned((1500, 1100))
    mod.mm_nn(a, b, out=out)
    eager = a @ b
    assert torch.equal(out.isnan(), eager.isnan()), "NaN pattern differs from eager's"
    assert torch.equal(out.isinf(), eager.isinf()), "Inf pattern differs from eager's"
    finite = eager.isfinite()
    ref = a.double() @ b.double()
    check("mm_nn finite outputs beside NaN/Inf", out[finite].view(1, -1),
          ref[finite].view(1, -1), TOL * 10)


@pytest.mark.parametrize("stem,m,n,k,layout", [
    ("gemm_unaligned_nn", 8205, 5921, 2949, "nn"),  # KernelBench's shape
    ("gemm_unaligned_nt", 4096, 4096, 4095, "nt"),
])
def test_gemm_artifacts(stem, m, n, k, layout, generator):
    """bench/suite.py's unaligned classes: copies, then one wgmma_tma GEMM."""
    mod = load(stem)
    names = kernels(stem, "forward")
    assert names[-1] == "forward_matmul", names
    x = uniform((m, k), generator)
    if layout == "nn":
        w = uniform((k, n), generator, 1 / math.sqrt(k))
        ref64, eager = x.double() @ w.double(), x @ w
    else:
        w = uniform((n, k), generator, 1 / math.sqrt(k))
        ref64, eager = x.double() @ w.double().T, x @ w.T
    out = poisoned((m, n))
    mod.forward(x, w, out=out)
    check_both(f"{stem} {m}x{n}x{k}", out, ref64, eager)
