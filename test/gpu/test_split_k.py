"""Split K (#fuser.config split_k): matmuls with too few output tiles.

A product whose output tiles fill under half the SMs (256 x 256 x 131072:
4 tiles for 132 SMs) gets its K split by the configuration step: the
wgmma_tma kernel (3xtf32 under the default precision) runs one block per
(tile, K slice) pair and stores raw fp32 sums into an [S, M, N]
intermediate; a second kernel adds the S slices in a fixed order (in f64)
and applies the epilogue. The bars, beside cuBLAS on the same inputs
(fresh random inputs of both signs, NaN-poisoned outputs):
  - every element written and the users' rule (atol = rtol = 1e-4)
    against float64;
  - max |result - float64| at most 2x eager PyTorch's (cuBLAS SGEMM, then
    its epilogue), at sizes with enough outputs for a stable maximum;
  - the same inputs give bitwise the same result (no atomics).
Artifacts: scripts/build-mma-artifacts.sh (split_k_*; the inputs are
test/gpu/Inputs/split_k/*.mlir).
"""

import json

import pytest
import torch

from gpu_util import ARTIFACTS, check, linear_weights, load, poisoned

TOL = 1e-4  # the users' fp32 rule (atol = rtol = 1e-4)
SGEMM_FACTOR = 2.0  # max error at most this times eager PyTorch's

pytestmark = pytest.mark.usefixtures("fp32_reference")


def max_err(out, ref):
    return float((out.double() - ref).abs().max())


def manifest(stem):
    path = ARTIFACTS / f"{stem}.manifest.json"
    if not path.exists():
        pytest.skip(f"{path} missing: run scripts/build-gpu-artifacts.sh")
    return json.loads(path.read_text())["functions"][0]


def uniform(shape, generator):
    return torch.rand(*shape, device="cuda", generator=generator) * 2 - 1


@pytest.mark.parametrize("stem,slices,shape", [
    ("split_k_large_k", 33, [256, 256]),
    ("split_k_odd_bias_tanh", 22, [200, 328]),
    ("split_k_large_k_tf32", 66, [256, 256]),
    ("split_k_tall_tf32", 3, [2200, 300]),
    ("gemm_large_k", 33, [256, 256]),  # bench/suite.py's large_k class
])
def test_default_config_splits_k(stem, slices, shape):
    """The static large-K inputs are split under the default options: the
    GEMM kernel writes an [S, M, N] f32 intermediate, then the reduction
    kernel."""
    fn = manifest(stem)
    kernels = [launch["kernel"] for launch in fn["launches"]]
    assert kernels == ["forward_matmul", "forward_matmul_reduce"], kernels
    results = {r["buffer"] for r in fn["results"]}
    intermediates = [b for b in fn["buffers"]
                     if b["kind"] == "alloc" and b["id"] not in results]
    assert [(b["dtype"], b["shape"]) for b in intermediates] == [("f32", [slices] + shape)]


def test_large_k(generator):
    """Issue #17's class, 256 x 256 x 131072 (x in [-1, 1), nn.Linear's
    weights), 3 trials: 1e-4 and at most 2x cuBLAS SGEMM's error."""
    mod = load("split_k_large_k")
    ours = cublas = 0.0
    for trial in range(3):
        x = uniform((256, 131072), generator)
        w, _ = linear_weights(256, 131072, generator)
        out = poisoned((256, 256))
        mod.forward(x, w, out=out)
        ref = x.double() @ w.double().T
        check(f"split_k_large_k trial={trial}", out, ref, TOL)
        ours = max(ours, max_err(out, ref))
        cublas = max(cublas, max_err(x @ w.T, ref))
        again = poisoned((256, 256))
        mod.forward(x, w, out=again)
        assert torch.equal(out, again), "split K is not deterministic"
    print(f"[gpu tests] split K 256x256x131072: max |GEMM - float64| fuser {ours:.3e}, "
          f"cuBLAS SGEMM {cublas:.3e}")
    assert ours <= SGEMM_FACTOR * cublas, (ours, cublas)


def test_odd_sizes_with_epilogue(generator):
    """200 x 328 x 70004 (no tile multiple; a partial last K tile and a
    shorter last slice), tanh(x W^T + b) applied by the reduction kernel,
    inputs of both signs at nn.Linear's scale, 3 trials."""
    mod = load("split_k_odd_bias_tanh")
    ours = eager = 0.0
    for trial in range(3):
        x = uniform((200, 70004), generator)
        w, b = linear_weights(328, 70004, generator)
        b = b * 300  # a bias that moves tanh off its linear part
        out = poisoned((200, 328))
        mod.forward(x, w, b, out=out)
        ref = torch.tanh(x.double() @ w.double().T + b.double())
        check(f"split_k_odd_bias_tanh trial={trial}", out, ref, TOL)
        ours = max(ours, max_err(out, ref))
        eager = max(eager, max_err(torch.tanh(x @ w.T + b), ref))
    print(f"[gpu tests] split K 200x328x70004 + bias, tanh: fuser {ours:.3e}, eager {eager:.3e}")
    assert ours <= SGEMM_FACTOR * eager, (ours, eager)


@pytest.mark.parametrize("m", [1, 7, 1000, 3000])
def test_forced_split_dynamic_m(m, generator):
    """split-k=8 on a dynamic M (x W^T + b, times a per-row scale): at
    M = 3000, 384 (tile, slice) pairs for 132 blocks, so blocks carry
    their stage phases from one pair to the next."""
    mod = load("split_k_dynamic_m")
    x = uniform((m, 8192), generator)
    w, b = linear_weights(256, 8192, generator)
    s = uniform((m,), generator)
    out = poisoned((m, 256))
    mod.forward(x, w, b, s, out=out)
    ref = (x.double() @ w.double().T + b.double()) * s.double()[:, None]
    check(f"split_k_dynamic_m m={m}", out, ref, TOL)
    ours, eager = max_err(out, ref), max_err((x @ w.T + b) * s[:, None], ref)
    print(f"[gpu tests] split K=8 m={m}: fuser {ours:.3e}, eager {eager:.3e}")
    if m >= 1000:
        assert ours <= SGEMM_FACTOR * eager, (ours, eager)


def test_large_k_tf32(generator):
    """precision=tf32 (one tf32 product, truncated operands) split 66 ways
    on 128 x 256 tiles: within tf32's 1e-2."""
    mod = load("split_k_large_k_tf32")
    x = uniform((256, 131072), generator)
    w, _ = linear_weights(256, 131072, generator)
    out = poisoned((256, 256))
    mod.forward(x, w, out=out)
    check("split_k_large_k_tf32", out, x.double() @ w.double().T, 1e-2)


def test_tall_tf32_in_bands(generator):
    """tf32, 2200 x 300 x 16384: K split 3 ways and the (tile, slice) pairs
    walked in bands of 8 M tiles (8, 8, 2), the second N tile mostly past
    N; every output written once, within tf32's 1e-2."""
    mod = load("split_k_tall_tf32")
    for trial in range(2):
        x = uniform((2200, 16384), generator)
        w, _ = linear_weights(300, 16384, generator)
        out = poisoned((2200, 300))
        mod.forward(x, w, out=out)
        check(f"split_k_tall_tf32 trial={trial}", out, x.double() @ w.double().T, 1e-2)
