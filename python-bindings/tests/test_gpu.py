"""End-to-end calls on a GPU through PyTorch/CuPy; skipped without one."""

import pytest

import fuser

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device visible to PyTorch", allow_module_level=True)


@pytest.fixture
def mod(artifact):
    return fuser.load(artifact)


def expected(x):
    # scale_add: 2 * x + numel (the memref kernel adds its size).
    return 2 * x + x.numel()


def test_torch_call_allocates_on_the_same_device(mod):
    x = torch.randn(1000, device="cuda")
    y = mod.scale_add(x)
    assert isinstance(y, torch.Tensor)
    assert y.device == x.device and y.dtype == torch.float32
    assert y.shape == (1000,)
    torch.testing.assert_close(y, expected(x))


def test_torch_current_stream_is_used(mod):
    x = torch.randn(1 << 20, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = mod.scale_add(x)
        z = y * 1  # Ordered after the fuser kernels on the same stream.
    s.synchronize()
    torch.testing.assert_close(z, expected(x))


def test_out_and_explicit_stream(mod):
    x = torch.randn(333, device="cuda")
    out = torch.empty_like(x)
    res = mod.scale_add(x, out=out, stream=torch.cuda.current_stream())
    assert res is out
    torch.testing.assert_close(out, expected(x))


def test_requires_grad_tensor(mod):
    x = torch.randn(64, device="cuda", requires_grad=True)
    torch.testing.assert_close(mod.scale_add(x), expected(x.detach()))


def test_zero_size(mod):
    y = mod.scale_add(torch.empty(0, device="cuda"))
    assert y.shape == (0,)


def test_non_contiguous_is_rejected(mod):
    x = torch.randn(64, device="cuda")[::2]
    with pytest.raises(fuser.FuserError,
                       match=r"scale_add: argument 0 \('x'\) is not "
                             r"contiguous \(shape \[32\], strides \[2\]\)"):
        mod.scale_add(x)


def test_misaligned_view_is_rejected(mod):
    x = torch.randn(65, device="cuda")[1:]
    with pytest.raises(fuser.FuserError, match="is not aligned to 16 bytes"):
        mod.scale_add(x)


def test_bad_out_shape(mod):
    x = torch.randn(8, device="cuda")
    with pytest.raises(fuser.FuserError,
                       match=r"output 0 has shape \[9\], expected \[8\]"):
        mod.scale_add(x, out=torch.empty(9, device="cuda"))


def test_multiple_results_and_bf16(mod):
    x = torch.randn(3, 8, device="cuda")
    w = torch.randn(8, 4, device="cuda")
    a, b = mod.matmul(x, w)
    assert a.shape == (3, 4) and a.dtype == torch.float32
    assert b.shape == (3,) and b.dtype == torch.bfloat16


class CudaArrayInterfaceOnly:
    def __init__(self, t):
        self._t = t
        self.__cuda_array_interface__ = t.__cuda_array_interface__


def test_cuda_array_interface_object_with_out(mod):
    x = torch.randn(100, device="cuda")
    out = torch.empty_like(x)
    mod.scale_add(CudaArrayInterfaceOnly(x), out=out)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, expected(x))


def test_cupy_arrays(mod):
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(500, dtype=cupy.float32)
    y = mod.scale_add(x)
    assert isinstance(y, cupy.ndarray)
    cupy.testing.assert_allclose(y, 2 * x + 500)


def test_call_overhead(mod):
    """Reports the host cost per call (no assertion beyond sanity)."""
    import time

    x = torch.randn(1024, device="cuda")
    for _ in range(10):
        mod.scale_add(x)
    torch.cuda.synchronize()
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n):
        mod.scale_add(x)
    torch.cuda.synchronize()
    per_call_us = (time.perf_counter() - t0) / n * 1e6
    print(f"\nfuser call overhead: {per_call_us:.1f} us/call (2 launches)")
    assert per_call_us < 1000
