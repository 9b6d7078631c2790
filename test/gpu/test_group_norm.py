"""fuser.group_norm groups (one block per (sample, group), several small
groups per block, or large groups split over blocks) against float64
references: the linalg decomposition fuser recognizes, the direct form with
epilogue inputs, groups from 70 to 65536 elements, dynamic N."""

import pytest
import torch
import torch.nn.functional as F

from gpu_util import check, load, poisoned, randn

TOL = 1e-4  # the users' fp32 rule (atol = rtol = 1e-4)


def gn_ref(x, groups, gamma, beta, eps=1e-5):
    """GroupNorm in float64: biased variance over each (sample, group)."""
    xd = x.double()
    g = xd.reshape(x.shape[0], groups, -1)
    mean = g.mean(-1, keepdim=True)
    var = g.var(-1, unbiased=False, keepdim=True)
    y = ((g - mean) / torch.sqrt(var + eps)).reshape(x.shape)
    shape = (1, -1) + (1,) * (x.dim() - 2)
    return y * gamma.double().reshape(shape) + beta.double().reshape(shape)


def affine(c, generator):
    return 1 + 0.5 * randn((c,), generator, 1.0), 0.5 * randn((c,), generator, 1.0)


@pytest.mark.parametrize("n", [1, 3, 8])
@pytest.mark.parametrize("offset,scale", [(0.0, 3.0), (1000.0, 0.05)])
def test_nchw_decomposition(n, offset, scale, generator):
    """torch-mlir's decomposition (recognized), 70-element groups (2-wide
    accesses), LeakyReLU and a residual in the epilogue; also a large mean
    with a small spread, where fp32 x - mean would lose digits."""
    mod = load("group_norm_nchw")
    x = offset + randn((n, 6, 5, 7), generator, scale)
    gamma, beta = affine(6, generator)
    r = randn((n, 6, 5, 7), generator)
    out = poisoned((n, 6, 5, 7))
    mod.forward(x, gamma, beta, r, out=out)
    ref = F.leaky_relu(gn_ref(x, 3, gamma, beta), 0.01) + r.double()
    check(f"group_norm nchw n={n} mean={offset} std={scale}", out, ref, TOL)


def test_nchw_zero_batch(generator):
    mod = load("group_norm_nchw")
    gamma, beta = affine(6, generator)
    y = mod.forward(torch.empty((0, 6, 5, 7), device="cuda"), gamma, beta,
                    torch.empty((0, 6, 5, 7), device="cuda"))
    assert y.shape == (0, 6, 5, 7)


def test_nchw_residual_mismatch_raises(generator):
    import fuser
    mod = load("group_norm_nchw")
    gamma, beta = affine(6, generator)
    with pytest.raises(fuser.FuserError):
        mod.forward(randn((2, 6, 5, 7), generator), gamma, beta, randn((3, 6, 5, 7), generator))


@pytest.mark.parametrize("n", [1, 2, 5])
@pytest.mark.parametrize("offset,scale", [(0.0, 2.0), (-500.0, 0.01)])
def test_large_groups_epilogue_inputs(n, offset, scale, generator):
    """16384-element groups (512 threads, cross-warp merge) and an epilogue
    reading a per-sample and a per-channel input."""
    mod = load("group_norm_large")
    x = offset + randn((n, 64, 32, 32), generator, scale)
    gamma, beta = affine(64, generator)
    s, t = randn((n,), generator), randn((64,), generator)
    out = poisoned((n, 64, 32, 32))
    mod.forward(x, gamma, beta, s, t, out=out)
    ref = gn_ref(x, 4, gamma, beta) * s.double()[:, None, None, None] + t.double()[None, :, None, None]
    check(f"group_norm large n={n} mean={offset} std={scale}", out, ref, TOL)


@pytest.mark.parametrize("stem,shape,groups", [
    ("group_norm_512x8x8", (5, 512, 8, 8), 32),
    ("group_norm_512x64x64", (2, 512, 64, 64), 32),  # 65536-element groups
])
def test_bench_shapes(stem, shape, groups, generator):
    mod = load(stem)
    x = randn(shape, generator, 2.0) + 1.0
    gamma, beta = affine(shape[1], generator)
    out = poisoned(shape)
    mod.forward(x, gamma, beta, out=out)
    check(f"{stem} n={shape[0]}", out, gn_ref(x, groups, gamma, beta), TOL)
    ref32 = F.group_norm(x, groups, gamma, beta, eps=1e-5)
    assert torch.allclose(out, ref32, atol=TOL, rtol=TOL), "fails the 1e-4 rule vs PyTorch fp32"


@pytest.mark.parametrize("n", [1, 3, 1027])
@pytest.mark.parametrize("offset,scale", [(0.0, 3.0), (1000.0, 0.05)])
def test_small_groups_share_blocks(n, offset, scale, generator):
    """Groups smaller than a warp's work, several per block: groups of 16
    (W3's GroupNorm(512)), of 4 with LeakyReLU, of 36 in 3-D; batch sizes
    that leave the last block partly empty."""
    mod = load("group_norm_small_groups")
    cases = [("groups_of_16", (n, 8192), 512, lambda y: y),
             ("groups_of_4_leaky", (n, 64), 16, lambda y: F.leaky_relu(y, 0.01)),
             ("groups_of_36", (n, 96, 3), 8, lambda y: y)]
    for fn, shape, groups, epilogue in cases:
        x = offset + randn(shape, generator, scale)
        gamma, beta = affine(shape[1], generator)
        out = poisoned(shape)
        getattr(mod, fn)(x, gamma, beta, out=out)
        ref = epilogue(gn_ref(x, groups, gamma, beta))
        check(f"group_norm {fn} n={n} mean={offset} std={scale}", out, ref, TOL)


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("offset,scale", [(0.0, 3.0), (1000.0, 0.05)])
def test_split_groups(n, offset, scale, generator):
    """Groups split over blocks (statistics kernel, then normalizing kernel):
    LayerNorm-like groups of 23100 (2 slices, the last short) with a
    per-sample epilogue input, and 1-wide groups of 32967 (3 slices)."""
    mod = load("group_norm_split")
    x = offset + randn((n, 3, 100, 77), generator, scale)
    gamma, beta = affine(3, generator)
    s = randn((n,), generator)
    out = poisoned(x.shape)
    mod.layer_norm(x, gamma, beta, s, out=out)
    ref = gn_ref(x, 1, gamma, beta) * s.double()[:, None, None, None]
    check(f"group_norm split layer_norm n={n} mean={offset} std={scale}", out, ref, TOL)

    x = offset + randn((n, 6, 999, 11), generator, scale)
    gamma, beta = affine(6, generator)
    out = poisoned(x.shape)
    mod.odd_groups(x, gamma, beta, out=out)
    check(f"group_norm split odd n={n} mean={offset} std={scale}", out,
          gn_ref(x, 2, gamma, beta), TOL)


@pytest.mark.parametrize("n", [1, 5])
@pytest.mark.parametrize("size", [1000, 40000])
def test_layer_norm_rows_residual(n, size, generator):
    """LayerNorm over rows with a per-element weight and bias and a residual
    (all read 4-wide), in one block (1000) and split over 3 (40000)."""
    mod = load("group_norm_split")
    x = 3.0 + randn((n, size), generator, 2.0)
    gamma, beta = affine(size, generator)
    r = randn((n, size), generator)
    out = poisoned((n, size))
    getattr(mod, f"rows_{size}")(x, gamma, beta, r, out=out)
    ref = gn_ref(x, 1, gamma, beta) + r.double()
    check(f"layer_norm rows={size} n={n}", out, ref, TOL)
    ref32 = F.layer_norm(x, (size,), gamma, beta, eps=1e-5) + r
    assert torch.allclose(out, ref32, atol=TOL, rtol=TOL), "fails the 1e-4 rule vs PyTorch fp32"
