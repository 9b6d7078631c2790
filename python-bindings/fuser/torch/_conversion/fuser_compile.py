"""Exported IR text to an Artifact: fuser.compile (the registered GPU
pipeline, with remarks) through the on-disk cache (cache.py), compiled
again unfused (fuse=false: every op alone, the fallback lowering) with a
warning when fusion fails."""

from __future__ import annotations

import warnings
from typing import Any, List, Mapping, Optional, Tuple

from ..._native import FuserError
from ...artifact import Artifact
from .cache import CompileCache, cached_compile

# Kept in the remarks of a variant that failed to fuse: the first lines of
# the compiler's error.
_ERROR_LINES = 12


def short_error(error: BaseException) -> str:
    """An error's text, cut to its first lines."""
    text = str(error).strip() or type(error).__name__
    lines = text.splitlines()
    if len(lines) > _ERROR_LINES:
        lines = lines[:_ERROR_LINES] + [f"... ({len(lines) - _ERROR_LINES} "
                                        "more lines)"]
    return "\n".join(lines)


def compile_ir(text: str, *, chip: str, precision: str, format: str,
               options: Mapping[str, Any], cache: Optional[CompileCache],
               retry_unfused: bool = True) -> Tuple[Artifact, dict]:
    """fuser.compile of exported text through the cache, with remarks; if
    fusion fails, again with fuse=false (a note and a RuntimeWarning say
    why), or with retry_unfused=False the error is raised. Returns the
    artifact and its info (fused, cache_hit, notes, remarks)."""
    notes: List[str] = []
    options = dict(options)
    try:
        art, hit = cached_compile(text, chip=chip, precision=precision,
                                  format=format, options=options, cache=cache)
        fused = options.get("fuse", True) not in (False, "false", 0)
    except FuserError as e:
        if not retry_unfused or options.get("fuse", True) in (False, "false", 0):
            raise
        notes.append("fusion failed, so every op is compiled alone "
                     f"(fuse=false):\n{short_error(e)}")
        # Slower kernels, not wrong ones: say so where users look.
        warnings.warn("fuser.torch: fusion failed, so every op is compiled "
                      f"alone (fuse=false; slower): {short_error(e)}",
                      RuntimeWarning, stacklevel=3)
        options["fuse"] = False
        art, hit = cached_compile(text, chip=chip, precision=precision,
                                  format=format, options=options, cache=cache)
        fused = False
    return art, {"fused": fused, "cache_hit": hit, "notes": notes,
                 "remarks": art.remarks}
