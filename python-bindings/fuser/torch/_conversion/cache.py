"""The on-disk compile cache of fuser.torch.

An entry is keyed by the SHA-256 of the exported MLIR text, the compile
options, fuser's version and the identity (path, size, modification time)
of the compiler tools, so rebuilding fuser-opt invalidates what it compiled.
Each entry is one JSON file written to a temporary name and renamed into
place (atomic on POSIX): concurrent compiles of one model write the same
bytes, and a reader never sees half a file. A failed compilation is cached
too (its error), so a model fuser cannot compile is not retried on every
export.

Location: $FUSER_CACHE_DIR, else $XDG_CACHE_HOME/fuser/torch, else
~/.cache/fuser/torch.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Tuple, Union

from ... import __version__
from ..._native import FuserError
from ...artifact import Artifact
from ...compiler import compile as _fuser_compile
from ...compiler import find_tools

CACHE_FORMAT = 1


def default_cache_dir() -> Path:
    env = os.environ.get("FUSER_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return Path(base) / "fuser" / "torch"


def tools_identity() -> list:
    out = []
    for tool in find_tools():
        st = os.stat(tool)
        out.append([os.path.realpath(tool), st.st_size, st.st_mtime_ns])
    return out


def cache_key(text: str, options: Mapping[str, Any]) -> str:
    material = json.dumps({
        "cache_format": CACHE_FORMAT,
        "ir_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "options": options,
        "fuser_version": __version__,
        "tools": tools_identity(),
    }, sort_keys=True)
    return hashlib.sha256(material.encode()).hexdigest()


class CompileCache:
    def __init__(self, root: Optional[Path] = None) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Optional[dict]:
        try:
            with open(self._path(key), encoding="utf-8") as f:
                entry = json.load(f)
        except (OSError, ValueError):
            return None  # Missing or unreadable: a miss.
        return entry if isinstance(entry, dict) else None

    def put(self, key: str, entry: dict) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(entry, f)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:
            pass  # A read-only or full cache only costs the next compile.


def _to_entry(art: Artifact) -> dict:
    return {"ptx": art.ptx, "manifest": art.manifest,
            "cubin": (base64.b64encode(art.cubin).decode()
                      if art.cubin is not None else None),
            "remarks": art.remarks}


def _from_entry(entry: dict) -> Artifact:
    cubin = entry.get("cubin")
    return Artifact(ptx=entry["ptx"], manifest=entry["manifest"],
                    cubin=base64.b64decode(cubin) if cubin else None,
                    remarks=entry.get("remarks", ""))


def cached_compile(text: str, *, chip: str, precision: str, format: str,
                   options: Mapping[str, Any],
                   cache: Optional[CompileCache]) -> Tuple[Artifact, bool]:
    """fuser.compile(text) with remarks, through the cache: (artifact,
    whether it was a cache hit). A cached failure raises its FuserError."""
    key = None
    if cache is not None:
        key = cache_key(text, {"chip": chip, "precision": precision,
                               "format": format, "options": dict(options)})
        entry = cache.get(key)
        if entry is not None:
            if "error" in entry:
                raise FuserError(entry["error"])
            try:
                return _from_entry(entry), True
            except (KeyError, TypeError, ValueError):
                pass  # A damaged entry: compile again and overwrite it.
    try:
        art = _fuser_compile(text, chip=chip, precision=precision,
                             format=format, report=True, options=options)
    except FuserError as e:
        # A tool killed by a signal (memory, a timeout) may do better next
        # time; a diagnostic will not.
        if cache is not None and "failed (signal" not in str(e):
            cache.put(key, {"error": str(e)})
        raise
    if cache is not None:
        cache.put(key, _to_entry(art))
    return art, False


def make_cache(cache: Union[bool, str, "os.PathLike[str]", None]
               ) -> Optional[CompileCache]:
    """compile()'s `cache` argument as a CompileCache (or None)."""
    if cache is True:
        return CompileCache()
    if cache is False or cache is None:
        return None
    return CompileCache(cache)
