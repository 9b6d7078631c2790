"""The extension's Module/Function API and call validation, on the CPU."""

import numpy as np
import pytest

import fuser
from conftest import driver_installed
from fuser import _fuser_runtime as rt

CUDA_X = 0x7F0000010000


def cuda_ref(shape, dtype="f32", data=CUDA_X, device_id=0):
    return fuser.TensorRef(data, dtype, shape, None, "cuda", device_id)


def test_function_lookup(module):
    assert module.function_names == ["scale_add", "matmul"]
    assert module.chip == "sm_80"
    fn = module.function("matmul")
    assert fn.name == "matmul"
    assert fn.num_results == 2
    assert fn.arg_specs == [
        {"name": "x", "dtype": "f32", "shape": (None, None), "align": 16},
        {"name": "w", "dtype": "f32", "shape": (None, 4), "align": 4},
    ]
    with pytest.raises(fuser.FuserError,
                       match=r"no function named 'nope' in the module "
                             r"\(available: 'scale_add', 'matmul'\)"):
        module.function("nope")


def test_module_from_bytes(artifact):
    m = rt.Module(artifact.ptx.encode(), artifact.manifest)
    assert m.function_names == ["scale_add", "matmul"]


def test_result_specs(module):
    fn = module.function("matmul")
    specs = fn.result_specs([cuda_ref((3, 8)), cuda_ref((8, 4), data=CUDA_X * 2)])
    assert specs == [((3, 4), "f32"), ((3,), "bf16")]


def test_tensor_ref_fields():
    t = fuser.TensorRef(4096, "f16", (2, 3), None, "cuda", 1)
    assert (t.data, t.dtype, t.shape, t.strides, t.device, t.device_id) == (
        4096, "f16", [2, 3], [3, 1], "cuda", 1)
    with pytest.raises(fuser.FuserError, match="unknown dtype 'f7'"):
        fuser.TensorRef(0, "f7", (1,), None, "cuda", 0)
    with pytest.raises(fuser.FuserError, match="unknown device 'tpu'"):
        fuser.TensorRef(0, "f32", (1,), None, "tpu", 0)
    with pytest.raises(fuser.FuserError, match="1 strides for 2 dimensions"):
        fuser.TensorRef(0, "f32", (1, 2), (1,), "cuda", 0)


def test_numpy_input_is_on_the_cpu(module):
    x = np.zeros((3, 8), np.float32)
    w = np.zeros((8, 4), np.float32)
    with pytest.raises(fuser.FuserError,
                       match=r"^matmul: argument 0 \('x'\) is on the CPU; "
                             r"fuser kernels need CUDA tensors"):
        module.function("matmul").result_specs([x, w])


def test_numpy_wrong_dtype(module):
    x = np.zeros((3, 8), np.float64)
    w = np.zeros((8, 4), np.float32)
    with pytest.raises(fuser.FuserError,
                       match=r"matmul: argument 0 \('x'\) has dtype f64, "
                             r"expected f32"):
        module.function("matmul").result_specs([x, w])


def test_numpy_wrong_rank(module):
    x = np.zeros((3, 8, 2), np.float32)
    w = np.zeros((8, 4), np.float32)
    with pytest.raises(fuser.FuserError,
                       match=r"argument 0 \('x'\) has rank 3 \(shape "
                             r"\[3, 8, 2\]\), expected rank 2"):
        module.function("matmul").result_specs([x, w])


def test_numpy_failed_check(module):
    x = np.zeros((3, 8), np.float32)
    w = np.zeros((7, 4), np.float32)
    with pytest.raises(fuser.FuserError,
                       match=r"argument 1 dim 0 is 7 but must equal argument "
                             r"0 dim 1 \(8\): w dim 0 must equal x dim 1"):
        module.function("matmul").result_specs([x, w])


def test_non_contiguous_tensor(module):
    x = fuser.TensorRef(CUDA_X, "f32", (3, 8), (1, 3), "cuda", 0)
    w = cuda_ref((8, 4), data=CUDA_X * 2)
    with pytest.raises(fuser.FuserError,
                       match=r"matmul: argument 0 \('x'\) is not contiguous "
                             r"\(shape \[3, 8\], strides \[1, 3\]\)"):
        module.function("matmul").result_specs([x, w])


def test_misaligned_tensor(module):
    x = cuda_ref((3, 8), data=CUDA_X + 4)
    w = cuda_ref((8, 4), data=CUDA_X * 2)
    with pytest.raises(fuser.FuserError,
                       match=r"argument 0 \('x'\) data pointer 0x7f0000010004 "
                             r"is not aligned to 16 bytes"):
        module.function("matmul").result_specs([x, w])


def test_unsupported_dtype(module):
    with pytest.raises(fuser.FuserError,
                       match=r"scale_add: argument 0 has unsupported dtype "
                             r"uint8 \(fuser supports f32, f16, bf16"):
        module.function("scale_add").result_specs([np.zeros(4, np.uint8)])


def test_not_a_tensor(module):
    with pytest.raises(fuser.FuserError,
                       match=r"scale_add: argument 0 is a 'str', not a tensor"):
        module.function("scale_add").result_specs(["abc"])
    with pytest.raises(fuser.FuserError,
                       match=r"scale_add: expected a list of arguments, got a "
                             r"'int'"):
        module.function("scale_add").result_specs(3)


def test_wrong_argument_count(module):
    with pytest.raises(fuser.FuserError,
                       match="scale_add: expected 1 argument, got 2"):
        module.function("scale_add").result_specs([cuda_ref((4,)),
                                                   cuda_ref((4,))])


def test_bad_output_shape_before_any_cuda_call(module):
    fn = module.function("scale_add")
    with pytest.raises(fuser.FuserError,
                       match=r"scale_add: output 0 has shape \[5\], expected "
                             r"\[4\]"):
        fn.launch([cuda_ref((4,))], [cuda_ref((5,), data=CUDA_X * 2)], 0)


def test_numpy_output_is_on_the_cpu(module):
    fn = module.function("scale_add")
    with pytest.raises(fuser.FuserError,
                       match=r"scale_add: output 0 is on the CPU"):
        fn.launch([cuda_ref((4,))], [np.zeros(4, np.float32)], 0)


@pytest.mark.skipif(driver_installed(), reason="an NVIDIA driver is present")
def test_launch_without_driver_is_a_clear_error(module):
    fn = module.function("scale_add")
    with pytest.raises(fuser.FuserError,
                       match=r"libcuda\.so\.1 not found: is the NVIDIA driver "
                             r"installed\?"):
        fn.launch([cuda_ref((4,))], [cuda_ref((4,), data=CUDA_X * 2)], 0)
