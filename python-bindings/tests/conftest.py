"""Shared fixtures for the fuser Python tests (CPU; GPU tests skip)."""

import ctypes
import os
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def driver_installed() -> bool:
    """Whether libcuda can be opened (the runtime dlopens it the same way)."""
    try:
        ctypes.CDLL(os.environ.get("FUSER_LIBCUDA") or "libcuda.so.1")
        return True
    except OSError:
        return False


@pytest.fixture
def artifact():
    import fuser

    return fuser.Artifact.from_files(
        DATA / "scale_add.ptx", DATA / "scale_add.manifest.json"
    )


@pytest.fixture
def module(artifact):
    from fuser import _fuser_runtime

    return _fuser_runtime.Module(artifact.ptx, artifact.manifest)
