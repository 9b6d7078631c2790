"""The element types fuser's kernels take, in one table.

The lowest layer of the package (it imports nothing): fuser.frameworks reads
it to describe torch, CuPy and __cuda_array_interface__ tensors, fuser.torch
to map torch dtypes to manifest names and back.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

# (manifest name, framework name: the str() of a numpy/torch/cupy dtype and
# the torch attribute, numpy/CuPy attribute (None: CuPy has none),
# __cuda_array_interface__ typestr without its byte order (None: there is
# none)).
_TABLE: Tuple[Tuple[str, str, Optional[str], Optional[str]], ...] = (
    ("f32", "float32", "float32", "f4"),
    ("f16", "float16", "float16", "f2"),
    ("bf16", "bfloat16", None, None),
    ("f64", "float64", "float64", "f8"),
    ("i32", "int32", "int32", "i4"),
    ("i64", "int64", "int64", "i8"),
    ("i8", "int8", "int8", "i1"),
    ("i1", "bool", "bool_", "b1"),
)

# Manifest names, in the table's order.
NAMES: Tuple[str, ...] = tuple(row[0] for row in _TABLE)
# "f32, f16, bf16, ...": what error messages say fuser supports.
SUPPORTED = ", ".join(NAMES)

# Manifest name by a framework dtype's str() (numpy, cupy; torch's without
# its "torch." prefix).
BY_FRAMEWORK_NAME: Dict[str, str] = {row[1]: row[0] for row in _TABLE}
# Manifest name by __cuda_array_interface__ typestr (kind + bytes).
BY_TYPESTR: Dict[str, str] = {row[3]: row[0] for row in _TABLE
                              if row[3] is not None}

_FRAMEWORK_NAME = {row[0]: row[1] for row in _TABLE}
_NUMPY_NAME = {row[0]: row[2] for row in _TABLE}


def torch_dtype(torch: Any, name: str) -> Any:
    """The torch dtype of manifest name `name` (KeyError for others)."""
    return getattr(torch, _FRAMEWORK_NAME[name])


def torch_dtypes(torch: Any) -> Dict[str, Any]:
    """{manifest name: torch dtype} for every name."""
    return {name: torch_dtype(torch, name) for name in NAMES}


def numpy_name(name: str) -> Optional[str]:
    """The numpy/CuPy attribute of manifest name `name` (`bool_` for i1),
    or None where they have no such type (bf16); KeyError for others."""
    return _NUMPY_NAME[name]
