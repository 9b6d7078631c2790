"""Framework adapters: tensor descriptors, output allocation and streams.

Torch and CuPy tensors are described from their own metadata rather than
through DLPack or __cuda_array_interface__: that is cheaper, works for
tensors that require grad, and avoids CuPy's synchronizing array interface.
Everything else goes to the extension as is (DLPack / buffer protocol).
"""

from __future__ import annotations

import sys
from typing import Any, Optional, Sequence

from . import _dtypes
from ._native import FuserError, TensorRef, TorchLauncher

def _dtype_name(dtype: Any, label: str) -> str:
    name = str(dtype)
    if name.startswith("torch."):
        name = name[len("torch."):]
    try:
        return _dtypes.BY_FRAMEWORK_NAME[name]
    except KeyError:
        raise FuserError(
            f"{label} has unsupported dtype {name} (fuser supports "
            f"{_dtypes.SUPPORTED})"
        ) from None


def _torch():
    return sys.modules.get("torch")


def _cupy():
    return sys.modules.get("cupy")


def is_torch(obj: Any) -> bool:
    torch = _torch()
    return torch is not None and isinstance(obj, torch.Tensor)


def is_cupy(obj: Any) -> bool:
    cupy = _cupy()
    return cupy is not None and isinstance(obj, cupy.ndarray)


def cai_fields(cai: dict, label: str) -> tuple:
    """(data, dtype, shape, strides-in-elements) of a
    __cuda_array_interface__ dict."""
    if cai.get("mask") is not None:
        raise FuserError(f"{label} has a mask; masked arrays are unsupported")
    typestr = cai["typestr"]
    dtype = _dtypes.BY_TYPESTR.get(typestr[1:])
    if dtype is None:
        raise FuserError(
            f"{label} has unsupported __cuda_array_interface__ typestr "
            f"'{typestr}' (fuser supports {_dtypes.SUPPORTED})"
        )
    itemsize = int(typestr[2:])
    shape = tuple(int(d) for d in cai["shape"])
    strides = cai.get("strides")
    if strides is not None:
        if any(s % itemsize for s in strides):
            raise FuserError(
                f"{label} has byte strides {tuple(strides)} that are not "
                f"multiples of its element size {itemsize}"
            )
        strides = tuple(int(s) // itemsize for s in strides)
    data = int(cai["data"][0])
    return data, dtype, shape, strides


def describe(obj: Any, label: str) -> Any:
    """What to hand the extension for `obj`: a TensorRef, or `obj` itself
    when the extension can read it through DLPack."""
    if is_torch(obj):
        # Hot path: dtype objects as dict keys and is_cuda/get_device avoid
        # building strings and torch.device objects on every call.
        name = _torch_dtype_names().get(obj.dtype)
        if name is None:
            _dtype_name(obj.dtype, label)  # Raises the readable error.
        if obj.is_cuda:
            device, index = "cuda", obj.get_device()
        else:
            device, index = ("cpu" if obj.is_cpu else "other"), 0
        return TensorRef(obj.data_ptr(), name, obj.shape, obj.stride(),
                         device, index)
    if is_cupy(obj):
        itemsize = obj.itemsize
        return TensorRef(
            obj.data.ptr,
            _dtype_name(obj.dtype, label),
            obj.shape,
            tuple(s // itemsize for s in obj.strides),
            "cuda",
            obj.device.id,
        )
    if not hasattr(obj, "__dlpack__") and hasattr(
        obj, "__cuda_array_interface__"
    ):
        data, dtype, shape, strides = cai_fields(
            obj.__cuda_array_interface__, label
        )
        return TensorRef(data, dtype, shape, strides, "cuda", None)
    return obj


def stream_of(obj: Any, device_id: int) -> Optional[int]:
    """The current stream of `obj`'s framework on its device (as a CUstream
    integer), or None if the framework has no notion of one."""
    if is_torch(obj):
        if not obj.is_cuda:
            return None
        torch = _torch()
        # The raw getter (what Triton uses) skips building a Stream object,
        # a few microseconds per call; fall back to the public API.
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:
            return raw(obj.get_device())
        return torch.cuda.current_stream(obj.get_device()).cuda_stream
    if is_cupy(obj):
        cupy = _cupy()
        with cupy.cuda.Device(device_id):
            return cupy.cuda.get_current_stream().ptr
    cai = getattr(obj, "__cuda_array_interface__", None)
    if isinstance(cai, dict) and cai.get("stream") is not None:
        # CAI v3: the stream the producer's work is ordered on; 1 and 2 are
        # the legacy and per-thread default streams, as in the driver API.
        return int(cai["stream"])
    return None


def torch_launcher(select, make_dense: bool) -> Optional[Any]:
    """A launcher over `select` (see loader.TorchCall): the _fuser_torch
    extension's, built against this PyTorch (PyTorch's C++ API), where it
    was built and this is the PyTorch it was built for; else the
    extension's, through PyTorch's Python API. None while torch is not
    imported or has no CUDA."""
    torch = _torch()
    raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream",
                  None)
    if raw is None:
        return None
    native = _torch_native()
    if native is not None:
        return native.TorchLauncher(select, FuserError, make_dense)
    return TorchLauncher(select, _torch_dtype_names(), torch.Tensor,
                         torch.empty, torch.empty_like, raw, make_dense)


_TORCH_NATIVE: Any = None


def _torch_native() -> Optional[Any]:
    """fuser._fuser_torch, or None where it was not built or does not load
    with this PyTorch (another version than it was built against)."""
    global _TORCH_NATIVE
    if _TORCH_NATIVE is None:
        try:
            from . import _fuser_torch
        except ImportError:
            _fuser_torch = None
        same = (_fuser_torch is not None and
                _fuser_torch.torch_version == _torch().__version__)
        _TORCH_NATIVE = _fuser_torch if same else False
        if same and _GRAPH_MODE is not None:
            _fuser_torch.set_cuda_graphs(_GRAPH_MODE)
    return _TORCH_NATIVE or None


# The mode set_cuda_graphs chose; None leaves FUSER_CUDA_GRAPHS's.
_GRAPH_MODE: Optional[str] = None
GRAPH_MODES = ("off", "auto", "on")


def set_cuda_graphs(mode: str) -> None:
    """When a call's kernels launch as one CUDA graph, for every module of
    the process: "auto" (the default; calls of two or more kernels whose
    intermediates are small enough to keep, from a signature's second
    call), "on" (every call) or "off" (kernel by kernel). The environment
    variable FUSER_CUDA_GRAPHS sets the same at start-up (README,
    "Quick start: Python")."""
    global _GRAPH_MODE
    if mode not in GRAPH_MODES:
        raise ValueError(f"CUDA graph mode must be one of {GRAPH_MODES}, "
                         f"got {mode!r}")
    from . import _fuser_runtime
    _fuser_runtime.set_cuda_graphs(mode)
    if _TORCH_NATIVE:  # Its own copy of the runtime, once loaded.
        _TORCH_NATIVE.set_cuda_graphs(mode)
    _GRAPH_MODE = mode


def cuda_graphs() -> str:
    """The CUDA graph mode: "off", "auto" or "on"."""
    from . import _fuser_runtime
    return _fuser_runtime.cuda_graphs()


def stream_handle(stream: Any) -> int:
    """Accepts an int, a torch.cuda.Stream or a cupy Stream."""
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "cuda_stream"):
        return int(stream.cuda_stream)
    if hasattr(stream, "ptr"):
        return int(stream.ptr)
    raise TypeError(
        f"stream must be an int, torch.cuda.Stream or cupy Stream, got "
        f"{type(stream).__name__}"
    )


def allocate(like: Any, device_id: int, specs: Sequence[tuple],
             fn_name: str) -> list:
    """Allocates outputs of `specs` [(shape, dtype)] with the framework of
    `like`, on its device."""
    if is_torch(like):
        torch = _torch()
        return [
            torch.empty(shape, dtype=_dtypes.torch_dtype(torch, dtype),
                        device=like.device)
            for shape, dtype in specs
        ]
    cupy = _cupy() if is_cupy(like) else None
    if cupy is None and not hasattr(like, "__dlpack__"):
        # __cuda_array_interface__-only producers: CuPy is their usual
        # companion, so allocate with it when it is installed.
        try:
            import cupy  # noqa: F811
        except ImportError:
            cupy = None
    if cupy is not None:
        with cupy.cuda.Device(device_id):
            return [cupy.empty(shape, dtype=_cupy_dtype(cupy, dtype, fn_name))
                    for shape, dtype in specs]
    raise FuserError(
        f"{fn_name}: cannot allocate outputs for inputs of type "
        f"'{type(like).__name__}'; pass preallocated tensors with out=..."
    )


_TORCH_DTYPE_NAMES: Optional[dict] = None


def _torch_dtype_names() -> dict:
    global _TORCH_DTYPE_NAMES
    if _TORCH_DTYPE_NAMES is None:
        _TORCH_DTYPE_NAMES = {
            dtype: name
            for name, dtype in _dtypes.torch_dtypes(_torch()).items()
        }
    return _TORCH_DTYPE_NAMES


def _cupy_dtype(cupy, name: str, fn_name: str):
    attr = _dtypes.numpy_name(name)
    if attr is None:  # bf16
        raise FuserError(
            f"{fn_name}: CuPy has no bfloat16; pass a preallocated output "
            "with out=..."
        )
    return getattr(cupy, attr)
