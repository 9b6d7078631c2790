"""Pointwise groups on the GPU against float64 PyTorch references."""

import pytest
import torch
import torch.nn.functional as F

import fuser
from gpu_util import check, load, poisoned, randn

TOL = 1e-5  # fp32 pointwise math against a float64 reference


def leaky_ref(x):
    return F.leaky_relu(x.double(), 0.01)


@pytest.mark.parametrize("shape", [(37, 1001), (1, 3), (5, 4), (513, 2049), (1024, 4096)])
def test_w1_dynamic(shape, generator):
    mod = load("w1_leaky_relu_dynamic")
    x = randn(shape, generator)
    out = poisoned(shape)
    mod.forward(x, out=out)
    check(f"w1_dynamic{shape}", out, leaky_ref(x), TOL)
    # Framework-allocated output on the current stream.
    y = mod.forward(x)
    assert y.device == x.device and y.dtype == torch.float32
    check(f"w1_dynamic{shape} alloc", y, leaky_ref(x), TOL)


def test_w1_dynamic_zero_size():
    mod = load("w1_leaky_relu_dynamic")
    y = mod.forward(torch.empty((0, 7), device="cuda"))
    assert y.shape == (0, 7)


def test_w1_static_full_size(generator):
    """The real W1: 4096 x 393216, 6.4 GB, byte offsets past 2^32."""
    mod = load("w1_leaky_relu_static")
    shape = (4096, 393216)
    x = randn(shape, generator)
    out = poisoned(shape)
    mod.forward(x, out=out)
    torch.cuda.synchronize()
    worst = 0.0
    for rows in torch.arange(shape[0]).split(512):  # float64 in slices
        r0, r1 = int(rows[0]), int(rows[-1]) + 1
        worst = max(worst, check(f"w1_static rows {r0}:{r1}", out[r0:r1],
                                 leaky_ref(x[r0:r1]), TOL))
    print(f"[gpu tests] w1_static: max abs error {worst:.3e}")
    # The last elements lie past 2^32 bytes: check them explicitly.
    assert torch.equal(out[-1, -5:], F.leaky_relu(x[-1, -5:], 0.01))


def chain_ref(x, b):
    h = x.double() * 0.5 + b.double()
    return torch.tanh(F.leaky_relu(h, 0.01)) + h


@pytest.mark.parametrize("rows", [1, 37, 512])
def test_chain(rows, generator):
    mod = load("pointwise_chain")
    x = randn((rows, 1000), generator)
    b = randn((1000,), generator)
    out = poisoned((rows, 1000))
    mod.forward(x, b, out=out)
    check(f"chain rows={rows}", out, chain_ref(x, b), TOL)


def broadcast_ref(x, b, s):
    x, b, s = x.double(), b.double(), s.double()
    return torch.maximum(x * s + b, torch.minimum(x, torch.zeros_like(x))) * torch.exp(-x.abs())


@pytest.mark.parametrize("shape", [(3, 5), (17, 1), (1, 1), (129, 1023), (64, 4)])
def test_broadcast_odd(shape, generator):
    mod = load("broadcast_odd")
    x = randn(shape, generator)
    b = randn((shape[1],), generator)
    s = randn((), generator)
    out = poisoned(shape)
    mod.forward(x, b, s, out=out)
    check(f"broadcast_odd{shape}", out, broadcast_ref(x, b, s), TOL)


def test_broadcast_nan_propagates(generator):
    mod = load("broadcast_odd")
    x = randn((8, 9), generator)
    x[2, 3] = float("nan")
    b = randn((9,), generator)
    s = torch.tensor(1.5, device="cuda")
    y = mod.forward(x, b, s)
    check("broadcast_nan", y, broadcast_ref(x, b, s), TOL)
    assert torch.isnan(y[2, 3])


def test_broadcast_size_mismatch_raises(generator):
    mod = load("broadcast_odd")
    x = randn((4, 6), generator)
    with pytest.raises(fuser.FuserError, match="must equal"):
        mod.forward(x, randn((5,), generator), torch.tensor(1.0, device="cuda"))


@pytest.mark.parametrize("n", [1, 4, 1023, 1 << 20])
def test_two_results(n, generator):
    mod = load("two_results")
    x = randn((n,), generator)
    y_out, h_out = poisoned((n,)), poisoned((n,))
    mod.forward(x, out=(y_out, h_out))
    h = x.double() * x.double() - 1
    check(f"two_results n={n} h", h_out, h, TOL)
    check(f"two_results n={n} y", y_out, torch.sigmoid(h), TOL)


class TestBadArguments:
    """Each bad call raises a readable FuserError and launches nothing."""

    def test_wrong_dtype(self):
        mod = load("w1_leaky_relu_dynamic")
        with pytest.raises(fuser.FuserError, match="dtype"):
            mod.forward(torch.zeros((4, 4), device="cuda", dtype=torch.float64))

    def test_wrong_rank(self):
        mod = load("w1_leaky_relu_dynamic")
        with pytest.raises(fuser.FuserError, match="rank"):
            mod.forward(torch.zeros((4,), device="cuda"))

    def test_static_shape_mismatch(self):
        mod = load("pointwise_chain")
        with pytest.raises(fuser.FuserError):
            mod.forward(torch.zeros((2, 999), device="cuda"), torch.zeros((1000,), device="cuda"))

    def test_cpu_tensor(self):
        mod = load("w1_leaky_relu_dynamic")
        with pytest.raises(fuser.FuserError, match="(?i)cpu|device"):
            mod.forward(torch.zeros((4, 4)))

    def test_non_contiguous(self):
        mod = load("w1_leaky_relu_dynamic")
        with pytest.raises(fuser.FuserError, match="(?i)contiguous|stride"):
            mod.forward(torch.zeros((8, 4), device="cuda").t())

    def test_misaligned_view(self):
        mod = load("w1_leaky_relu_dynamic")
        base = torch.zeros(4 * 8 + 1, device="cuda")
        view = base[1:].view(4, 8)  # 4 bytes past a 16-byte boundary
        with pytest.raises(fuser.FuserError, match="(?i)align"):
            mod.forward(view)

    def test_wrong_argument_count(self):
        mod = load("pointwise_chain")
        with pytest.raises(fuser.FuserError):
            mod.forward(torch.zeros((2, 1000), device="cuda"))

    def test_bad_output_shape(self):
        mod = load("w1_leaky_relu_dynamic")
        with pytest.raises(fuser.FuserError):
            mod.forward(torch.zeros((4, 4), device="cuda"), out=torch.zeros((4, 5), device="cuda"))


@pytest.mark.parametrize("shape", [(3, 5), (129, 1023), (1, 1)])
def test_index_tensor(shape, generator):
    """An index-typed intermediate (from the fallback's linalg.index generic)
    read by a pointwise kernel as 64-bit integers."""
    mod = load("index_tensor")
    x = randn(shape, generator)
    rows = torch.arange(shape[0], device="cuda", dtype=torch.float64)[:, None]
    cols = torch.arange(shape[1], device="cuda", dtype=torch.float64)[None, :]
    out = poisoned(shape)
    mod.forward(x, out=out)
    check(f"index_tensor{shape}", out, x.double() + 7 * rows - cols, TOL)
