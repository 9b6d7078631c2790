"""fuser.compile: MLIR text to an Artifact, when the compiler is built in."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Union

from ._native import FuserError
from .artifact import Artifact

_NO_COMPILER = (
    "fuser was built without the compiler (FUSER_ENABLE_COMPILER=OFF); "
    "compile on a machine with MLIR and load the artifact here"
)


def _read_source(source: Union[str, "os.PathLike[str]"]) -> str:
    # A path is an os.PathLike or a one-line string naming an existing file;
    # anything else is MLIR text.
    if isinstance(source, os.PathLike):
        return Path(source).read_text()
    if isinstance(source, str):
        if "\n" not in source and source.strip() and Path(source).is_file():
            return Path(source).read_text()
        return source
    raise TypeError(
        f"compile() expects MLIR text or a path, got {type(source).__name__}"
    )


def compile(
    source: Union[str, "os.PathLike[str]"],
    chip: str = "sm_90a",
    precision: str = "fp32",
) -> Artifact:
    """Compiles MLIR (text or a path to a .mlir file) for `chip`.

    Needs the `_fuser_compiler` extension, which exists only in builds with
    FUSER_ENABLE_COMPILER=ON; otherwise raises FuserError.
    """
    try:
        from . import _fuser_compiler  # type: ignore[attr-defined]
    except ImportError:
        raise FuserError(_NO_COMPILER) from None

    result = _fuser_compiler.compile(
        _read_source(source), chip=chip, precision=precision
    )
    # Accept the shapes a compiler binding may reasonably return.
    if isinstance(result, Artifact):
        return result
    if isinstance(result, dict):
        return Artifact(**result)
    if isinstance(result, (tuple, list)):
        return Artifact(*result)
    return Artifact(
        ptx=result.ptx,
        manifest=result.manifest,
        header=getattr(result, "header", None),
        cubin=getattr(result, "cubin", None),
    )
