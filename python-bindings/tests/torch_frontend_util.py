"""The fuser.torch tests' precondition, in one place: torch, torch-mlir and
fuser's compiler tools (`make venv` and `make build`). Called at module level;
skips the whole module when something is missing."""

import pytest


def require_front_end():
    """Returns torch, or skips the calling test module."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_mlir")
    import fuser
    from fuser.compiler import find_tools

    try:
        find_tools()
    except fuser.FuserError:
        pytest.skip("fuser's compiler tools are not built",
                    allow_module_level=True)
    return torch
