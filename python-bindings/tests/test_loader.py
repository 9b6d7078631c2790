"""fuser.load and the Python-level call path, on the CPU."""

import numpy as np
import pytest

import fuser
from conftest import driver_installed
from fuser import frameworks


def test_load_exposes_functions(artifact):
    mod = fuser.load(artifact)
    assert mod.function_names == ["scale_add", "matmul"]
    assert mod.chip == "sm_80"
    assert mod.scale_add is mod["scale_add"]
    assert "matmul" in mod and "nope" not in mod
    assert "scale_add" in dir(mod)
    assert mod.matmul.arg_specs[1]["shape"] == (None, 4)
    assert mod.matmul.num_results == 2


def test_unknown_function(artifact):
    mod = fuser.load(artifact)
    with pytest.raises(AttributeError,
                       match=r"no function named 'nope' in the module "
                             r"\(available: 'scale_add', 'matmul'\)"):
        mod.nope
    with pytest.raises(KeyError, match="no function named 'nope'"):
        mod["nope"]


def test_load_rejects_non_artifacts():
    with pytest.raises(TypeError, match="load\\(\\) expects a fuser.Artifact"):
        fuser.load("model.ptx")


def test_numpy_call_is_on_the_cpu(artifact):
    mod = fuser.load(artifact)
    with pytest.raises(fuser.FuserError,
                       match=r"^scale_add: argument 0 \('x'\) is on the CPU"):
        mod.scale_add(np.zeros(16, np.float32))


def test_numpy_out_is_on_the_cpu(artifact):
    mod = fuser.load(artifact)
    with pytest.raises(fuser.FuserError, match="is on the CPU"):
        mod.scale_add(np.zeros(16, np.float32), out=np.zeros(16, np.float32))


def test_result_specs_via_python(artifact):
    mod = fuser.load(artifact)
    x = fuser.TensorRef(0x10000, "f32", (5, 8), None, "cuda", 0)
    w = fuser.TensorRef(0x20000, "f32", (8, 4), None, "cuda", 0)
    assert mod.matmul.result_specs(x, w) == [((5, 4), "f32"), ((5,), "bf16")]


class FakeCudaArray:
    """Exposes only __cuda_array_interface__ (like Numba device arrays)."""

    def __init__(self, ptr, shape, typestr="<f4", strides=None, stream=None):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "data": (ptr, False),
            "strides": strides, "version": 3, "stream": stream,
        }


def test_cuda_array_interface_fields():
    cai = FakeCudaArray(0x1000, (2, 3), "<f4", (12, 4)).__cuda_array_interface__
    assert frameworks.cai_fields(cai, "a") == (0x1000, "f32", (2, 3), (3, 1))
    cai = FakeCudaArray(0x1000, (4,), "|b1").__cuda_array_interface__
    assert frameworks.cai_fields(cai, "a") == (0x1000, "i1", (4,), None)
    with pytest.raises(fuser.FuserError,
                       match="a has unsupported __cuda_array_interface__ "
                             "typestr '<u2'"):
        frameworks.cai_fields(FakeCudaArray(1, (1,), "<u2")
                              .__cuda_array_interface__, "a")
    with pytest.raises(fuser.FuserError, match="not multiples of its element"):
        frameworks.cai_fields(FakeCudaArray(1, (2,), "<f4", (6,))
                              .__cuda_array_interface__, "a")


def test_stream_of_cuda_array_interface():
    assert frameworks.stream_of(FakeCudaArray(1, (1,), stream=1234), 0) == 1234
    assert frameworks.stream_of(FakeCudaArray(1, (1,)), 0) is None
    assert frameworks.stream_handle(7) == 7
    with pytest.raises(TypeError, match="stream must be an int"):
        frameworks.stream_handle("s")


@pytest.mark.skipif(driver_installed(), reason="an NVIDIA driver is present")
def test_cuda_array_interface_without_driver(artifact):
    # The device of a bare pointer comes from the driver.
    mod = fuser.load(artifact)
    with pytest.raises(fuser.FuserError, match="libcuda.so.1 not found"):
        mod.scale_add(FakeCudaArray(0x10000, (4,)))


def test_torch_cpu_tensor_is_on_the_cpu(artifact):
    torch = pytest.importorskip("torch")
    mod = fuser.load(artifact)
    with pytest.raises(fuser.FuserError,
                       match=r"scale_add: argument 0 \('x'\) is on the CPU"):
        mod.scale_add(torch.zeros(4))
    with pytest.raises(fuser.FuserError,
                       match="argument 0 has unsupported dtype uint8"):
        mod.scale_add(torch.zeros(4, dtype=torch.uint8))
