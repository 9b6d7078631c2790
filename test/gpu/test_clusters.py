"""wgmma_tma in 2-block clusters: each block copies half of the pair's
common B tile into both by TMA multicast (#fuser.config's cluster_m).

test/gpu/Inputs/clusters/: tf32, bf16 and 3xtf32 products compiled with
cluster-m=2 (clusters are opt-in), each beside its default build, the
control. A cluster computes the same sums in the same order as
a lone block, so the clustered and control results must be bit-identical:
a stale stage, a half of B in the wrong place or a tile past M that
stores would break that (or leave NaN in the poisoned outputs). The
values are checked against float64 too, at the users' rules (1e-2 for
tf32 and bf16, 1e-4 for 3xtf32). Shapes: an odd count of M tiles (one
block of the last clusters computes a tile past M), N = 1000 (the second
block's half of the last B tile mostly past N), dynamic M down to 1.
"""

import math

import pytest
import torch

from gpu_util import ARTIFACTS, check, load, poisoned, uniform

REDUCED_TOL = 1e-2  # tf32 / bf16: the users' reduced-precision rule
FP32_TOL = 1e-4

pytestmark = pytest.mark.usefixtures("fp32_reference")




def clustered(stem):
    """Whether stem's PTX declares 2-block clusters, for each kernel."""
    ptx = (ARTIFACTS / f"{stem}.ptx").read_text()
    return ptx.count(".reqnctapercluster 2, 1, 1"), ptx.count(".entry")


@pytest.mark.parametrize("stem,clusters", [
    ("cluster_linear_tf32", 2),            # odd_m, dyn_m (nn_b: mma.sync)
    ("cluster_linear_tf32_nocluster", 0),
    ("cluster_linear_3xtf32", 3),          # N-major B included
    ("cluster_linear_3xtf32_nocluster", 0),
    ("cluster_linear_bf16", 1),
    ("cluster_linear_bf16_nocluster", 0),
])
def test_cluster_kernels(stem, clusters):
    if not (ARTIFACTS / f"{stem}.ptx").exists():
        pytest.skip(f"{stem} missing: run scripts/build-gpu-artifacts.sh")
    count, entries = clustered(stem)
    assert count == clusters, (stem, count, entries)


def leaky(y):
    return torch.where(y > 0, y, 0.1 * y)


@pytest.mark.parametrize("precision,tol", [("tf32", REDUCED_TOL),
                                           ("3xtf32", FP32_TOL)])
def test_odd_m_tiles(precision, tol, generator):
    """1100 x 1000 x 1024: 9 M tiles in 5 clusters."""
    mod = load(f"cluster_linear_{precision}")
    control = load(f"cluster_linear_{precision}_nocluster")
    for trial in range(3):
        x = uniform((1100, 1024), generator)
        w = uniform((1000, 1024), generator, 1 / math.sqrt(1024))
        b = uniform((1000,), generator)
        out, ref_out = poisoned((1100, 1000)), poisoned((1100, 1000))
        mod.odd_m(x, w, b, out=out)
        control.odd_m(x, w, b, out=ref_out)
        exact = leaky(x.double() @ w.double().T + b.double())
        check(f"odd_m {precision} trial={trial}", out, exact, tol)
        assert torch.equal(out, ref_out), \
            f"odd_m {precision}: clustered and lone blocks differ"


@pytest.mark.parametrize("m", [1, 129, 1000, 2049])
@pytest.mark.parametrize("precision,tol", [("tf32", REDUCED_TOL),
                                           ("3xtf32", FP32_TOL)])
def test_dynamic_m(m, precision, tol, generator):
    """(x W^T + b) * 2 and, N-major, x @ w, at batch sizes past and within
    one tile."""
    mod = load(f"cluster_linear_{precision}")
    control = load(f"cluster_linear_{precision}_nocluster")
    x = uniform((m, 1024), generator)
    w = uniform((1000, 1024), generator, 1 / math.sqrt(1024))
    b = uniform((1000,), generator)
    out, ref_out = poisoned((m, 1000)), poisoned((m, 1000))
    mod.dyn_m(x, w, b, out=out)
    control.dyn_m(x, w, b, out=ref_out)
    check(f"dyn_m {precision} m={m}", out,
          (x.double() @ w.double().T + b.double()) * 2, tol)
    assert torch.equal(out, ref_out), f"dyn_m {precision} m={m}"
    x = uniform((m, 1000), generator)
    w = uniform((1000, 1036), generator, 1 / math.sqrt(1000))
    out, ref_out = poisoned((m, 1036)), poisoned((m, 1036))
    mod.nn_b(x, w, out=out)
    control.nn_b(x, w, out=ref_out)
    check(f"nn_b {precision} m={m}", out, x.double() @ w.double(), tol)
    if precision == "3xtf32":  # tf32 runs mma.sync there, the control too
        assert torch.equal(out, ref_out), f"nn_b {precision} m={m}"


@pytest.mark.parametrize("m", [1, 7, 1100])
def test_bf16(m, generator):
    """bf16 operands, f32 result: against float64 on the same bf16 inputs."""
    mod = load("cluster_linear_bf16")
    control = load("cluster_linear_bf16_nocluster")
    for trial in range(2):
        x = uniform((m, 1024), generator).to(torch.bfloat16)
        w = uniform((1000, 1024), generator, 1 / math.sqrt(1024)).to(torch.bfloat16)
        b = uniform((1000,), generator)
        out, ref_out = poisoned((m, 1000)), poisoned((m, 1000))
        mod.forward(x, w, b, out=out)
        control.forward(x, w, b, out=ref_out)
        err = check(f"bf16 m={m} trial={trial}", out,
                    x.double() @ w.double().T + b.double(), REDUCED_TOL)
        assert err < 1e-3, "bf16 operands with fp32 sums are fp32-accurate"
        assert torch.equal(out, ref_out), f"bf16 m={m}"
