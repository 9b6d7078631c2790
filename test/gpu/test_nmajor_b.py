"""Products whose B is N-major (K x N: x @ W, torch.mm(a, b), torch.bmm's
right operand) on 3xtf32 wgmma_tma, the fp32 default on sm_90a.

The kernel copies B in 32-column boxes of BK rows and its splitter
transposes each box in shared memory into the K-major rows tf32 wgmma reads,
so no transposing copy kernel runs first (test/gpu/Inputs/matmul_nmajor_b.mlir).
Against float64 and eager PyTorch (TF32 off) at the users' atol = rtol = 1e-4,
NaN-poisoned outputs, fresh inputs of both signs: a dynamic M, K and N that
are no tile multiples (rows past K and columns past N read zeros), the
128 x 96 wave tile (three boxes per stage), split K, and a dynamic batch.
A wrong transposition (a box, a swizzle, a row) fails every check here.
"""

import json
import math

import pytest
import torch

from gpu_util import ARTIFACTS, check_both, load, poisoned, uniform


pytestmark = pytest.mark.usefixtures("fp32_reference")


# The fp32 default (3xtf32) and tf32_2xbf16, whose splitter writes the
# transposed boxes' bf16 cross terms (scripts/build-mma-artifacts.sh).
@pytest.fixture(params=["matmul_nmajor_b", "matmul_nmajor_b_2xbf16"])
def stem(request):
    return request.param






def test_one_kernel_per_product():
    """Each product is its GEMM kernel alone (split K: and its reduction):
    no transposing copy of B, and B's tensor map is a [K, N] view."""
    path = ARTIFACTS / "matmul_nmajor_b.manifest.json"
    if not path.exists():
        pytest.skip(f"{path} missing: run scripts/build-gpu-artifacts.sh")
    fns = {f["name"]: f for f in json.loads(path.read_text())["functions"]}
    for name in ["mm_nn_dyn", "mm_nn_wave", "mm_nn_split", "bmm_nn", "mm_nn_tiny",
                 "mm_nn_gn"]:
        kernels = [launch["kernel"] for launch in fns[name]["launches"]]
        expected = [f"{name}_matmul"] + (["mm_nn_split_matmul_reduce"]
                                         if name == "mm_nn_split" else [])
        assert kernels == expected, kernels
    gemm = json.loads((ARTIFACTS / "gemm_bmm.manifest.json").read_text())
    assert [launch["kernel"] for launch in gemm["functions"][0]["launches"]] == \
        ["forward_matmul"]


@pytest.mark.parametrize("m", [1, 129, 1000])
def test_dynamic_m_k_tail(stem, m, generator):
    """x @ W + bias with K = 1000 (a partial last k tile) and N = 1036."""
    mod = load(stem)
    k, n = 1000, 1036
    for trial in range(2):
        x = uniform((m, k), generator)
        w = uniform((k, n), generator, 1 / math.sqrt(k))
        bias = uniform((n,), generator)
        out = poisoned((m, n))
        mod.mm_nn_dyn(x, w, bias, out=out)
        check_both(f"mm_nn_dyn {m}x{n}x{k} trial={trial}", out,
                   x.double() @ w.double() + bias.double(), x @ w + bias)


@pytest.mark.parametrize("fn,m,n,k", [
    ("mm_nn_wave", 1000, 3000, 1024),   # 128 x 96 tiles: three boxes per stage
    ("mm_nn_split", 256, 260, 65536),   # K split 22 ways
])
def test_static_tilings(stem, fn, m, n, k, generator):
    """Static products on the wave tile and on split K."""
    mod = load(stem)
    x = uniform((m, k), generator)
    w = uniform((k, n), generator, 1 / math.sqrt(k))
    out = poisoned((m, n))
    getattr(mod, fn)(x, w, out=out)
    check_both(f"{fn} {m}x{n}x{k}", out, x.double() @ w.double(), x @ w)


@pytest.mark.parametrize("bsz", [1, 3])
def test_bmm_dynamic_batch(stem, bsz, generator):
    """torch.bmm's layout, B x 1100 x 1036 x 1024, plus a per-batch,
    per-row addend; a NaN batch after the output stays NaN."""
    mod = load(stem)
    m, n, k = 1100, 1036, 1024
    x = uniform((bsz, m, k), generator)
    w = uniform((bsz, k, n), generator, 1 / 32)
    c = uniform((bsz, m), generator)
    big = poisoned((bsz + 1, m, n))
    mod.bmm_nn(x, w, c, out=big[:bsz])
    assert bool(torch.isnan(big[bsz]).all()), "a store past the output"
    check_both(f"bmm_nn {bsz}x{m}x{n}x{k}", big[:bsz],
               x.double() @ w.double() + c.double()[:, :, None],
               torch.bmm(x, w) + c[:, :, None])


@pytest.mark.parametrize("m", [1, 130])
def test_tiny_box_past_k_and_n(stem, m, generator):
    """K = 8, N = 12: the one 32 x 32 box of B per k tile is mostly outside
    B; TMA fills zeros there and the transposition moves them too."""
    mod = load(stem)
    x = uniform((m, 8), generator)
    w = uniform((8, 12), generator)
    out = poisoned((m, 12))
    mod.mm_nn_tiny(x, w, out=out)
    check_both(f"mm_nn_tiny {m}x12x8", out, x.double() @ w.double(), x @ w)


@pytest.mark.parametrize("m", [3, 300])
def test_group_norm_epilogue(stem, m, generator):
    """group_norm(x @ W) * 2 over groups of 16 columns, K = 200: the group
    statistics come from the transposed B's products."""
    mod = load(stem)
    x = uniform((m, 200), generator)
    w = uniform((200, 256), generator, 1 / math.sqrt(200))
    out = poisoned((m, 256))
    mod.mm_nn_gn(x, w, out=out)

    def norm(h):
        g = h.reshape(m, 16, 16)
        mean = g.mean(-1, keepdim=True)
        var = g.var(-1, unbiased=False, keepdim=True)
        return ((g - mean) / torch.sqrt(var + 1e-5)).reshape(m, 256) * 2

    check_both(f"mm_nn_gn {m}x256x200", out, norm(x.double() @ w.double()), norm(x @ w))
