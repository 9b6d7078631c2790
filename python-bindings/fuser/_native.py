"""Imports the C++ runtime extension with an actionable message on failure."""

try:
    from ._fuser_runtime import (FuserError, Function, Module, TensorRef,
                                 TorchLauncher)
except ImportError as e:  # pragma: no cover - depends on the build
    raise ImportError(
        "fuser's runtime extension (_fuser_runtime) is missing or failed to "
        "load: build it with -DFUSER_ENABLE_PYTHON=ON and put "
        "<build>/python_packages on PYTHONPATH, or `pip install "
        f"./python-bindings` ({e})"
    ) from e

# Tracebacks read "fuser.FuserError: ...", the name users import.
FuserError.__module__ = "fuser"

__all__ = ["FuserError", "Function", "Module", "TensorRef", "TorchLauncher"]
