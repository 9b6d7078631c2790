"""fuser.torch.save / fuser.torch.load: a compiled module as a package on
disk (the layout: _package.py). Loading needs torch and fuser's runtime
only: no MLIR, no torch-mlir.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Dict, Optional, Union

import torch

from .._native import FuserError
from ._package import SPEC, TORCH_DTYPES, Package
from ._runtime import CompiledModule, make_compiled

PathLike = Union[str, "os.PathLike[str]"]
WEIGHTS = "weights.pt"
# A directory holding one of these is a package save() may replace
# (fuser.torch.elementwise writes ELEMENTWISE beside its packages).
ELEMENTWISE = "fuser-elementwise.json"
MARKERS = (SPEC, ELEMENTWISE)


def _is_zip(path: Path) -> bool:
    return path.suffix == ".zip" or (path.is_file() and
                                     zipfile.is_zipfile(path))


def save(compiled: CompiledModule, path: PathLike, *,
         weights: bool = False) -> Path:
    """Writes `compiled`'s package to `path` (a directory, or a zip file
    when it ends in .zip), replacing what was there. With weights=True the
    module's state_dict goes along (weights.pt), so load() needs no module.
    Returns the path."""
    if type(compiled).__name__ == "PartitionedModule":
        raise FuserError(
            "save() takes whole-model packages; a partitioned module's "
            "graphs are kept in its compile cache (the cache= directory, "
            "$FUSER_CACHE_DIR), which torch.compile(model, backend=\"fuser\", "
            "options={\"cache\": directory}) loads where nothing compiles")
    if not isinstance(compiled, CompiledModule):
        raise TypeError(f"save() expects a module from fuser.torch.compile, "
                        f"got {type(compiled).__name__}")
    if compiled.fuser_fallback is not None:
        raise FuserError("nothing to save: the module runs eagerly, not "
                         f"through fuser ({compiled.fuser_fallback})")
    files = compiled.fuser_package.files()
    if weights:
        buf = io.BytesIO()
        torch.save({k: v.detach().cpu() for k, v in
                    compiled.state_dict().items()}, buf)
        files[WEIGHTS] = buf.getvalue()
    return write_files(files, path)


def write_files(files: Dict[str, bytes], path: PathLike) -> Path:
    """Writes {relative path: bytes} as a package directory, or a zip file
    when `path` ends in .zip, replacing what was there (a directory only if
    it is a package: it holds fuser-torch.json or `marker`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written beside the target, then renamed over it: a reader sees the old
    # package or the new one.
    if _is_zip(path):
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f, zipfile.ZipFile(
                    f, "w", zipfile.ZIP_DEFLATED) as z:
                for name, data in sorted(files.items()):
                    z.writestr(name, data)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        return path
    if path.exists() and not any((path / n).is_file() for n in MARKERS) \
            and any(path.iterdir()):
        raise FuserError(f"{path} exists and is not a fuser.torch package; "
                         "not overwriting it")
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        for name, data in files.items():
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / name).write_bytes(data)
        old = None
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.old.",
                                        dir=path.parent))
            os.rmdir(old)
            os.rename(path, old)
        os.rename(tmp, path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


def read_files(path: PathLike) -> Dict[str, bytes]:
    """The files of a package directory or zip, by relative path."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no fuser.torch package at '{path}'")
    if path.is_dir():
        return {p.relative_to(path).as_posix(): p.read_bytes()
                for p in path.rglob("*") if p.is_file()}
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist() if not n.endswith("/")}


class _State(torch.nn.Module):
    """Holds a loaded package's parameters and buffers under their names
    when load() is given no module."""

    def forward(self, *args, **kwargs):  # pragma: no cover - never called
        raise FuserError("a loaded package's state module has no forward")


def state_module(package: Package, weights: Optional[dict]
                 ) -> torch.nn.Module:
    """A module holding the package's parameters and buffers: `weights`
    where it has them, else zeros of the first variant's shapes."""
    root = _State()
    for a in package.spec["args"]:
        if a["kind"] == "input":
            continue
        *path, name = a["name"].split(".")
        m = root
        for p in path:
            if p not in m._modules:
                m.add_module(p, _State())
            m = m._modules[p]
        if weights is not None and a["name"] in weights:
            t = weights[a["name"]]
        else:
            dtype, shape = _first_spec(package, a["name"])
            t = torch.zeros(shape, dtype=dtype)
        if a["kind"] == "parameter":
            m.register_parameter(name, torch.nn.Parameter(t))
        else:
            m.register_buffer(name, t)
    return root


def _first_spec(package: Package, name: str):
    index = [a["name"] for a in package.spec["args"]].index(name)
    dtype, shape = package.variants[0].arg_specs[index]
    return TORCH_DTYPES[dtype], [d if d is not None else 0 for d in shape]


def _check_module(module: torch.nn.Module, package: Package) -> None:
    """The module has the package's parameters and buffers, shaped as the
    first variant takes them (where it fixes their sizes)."""
    state = dict(module.named_parameters())
    state.update(module.named_buffers())
    names = [a["name"] for a in package.spec["args"] if a["kind"] != "input"]
    missing = [n for n in names if n not in state]
    if missing:
        raise FuserError(
            f"the module lacks {', '.join(missing)}, which the package's "
            f"kernels take (they take {', '.join(names) or 'none'})")
    specs = package.variants[0].arg_specs if package.variants else []
    for n, (dtype, shape) in zip(names, specs):
        t = state[n]
        if len(t.shape) != len(shape) or any(
                d is not None and d != s for s, d in zip(t.shape, shape)):
            raise FuserError(
                f"the module's '{n}' has shape {list(t.shape)}; the package "
                f"was compiled for {['?' if d is None else d for d in shape]}")


def load(path: PathLike, module: Optional[torch.nn.Module] = None, *,
         map_location: Union[str, torch.device, None] = None
         ) -> CompiledModule:
    """Loads a package written by save(): a module whose forward runs its
    kernels.

    The kernels read the parameters and buffers of `module` (an instance of
    the model compiled, e.g. built with the same seed); without one they are
    the package's saved weights (save(weights=True)), else zeros of the
    compiled shapes to fill with load_state_dict(). `map_location` moves the
    state (e.g. "cuda") after loading. Needs only torch and fuser's runtime.
    """
    files = read_files(path)
    package = Package.from_files(files)
    if module is None:
        weights = None
        if WEIGHTS in files:
            weights = torch.load(io.BytesIO(files[WEIGHTS]),
                                 map_location="cpu", weights_only=True)
        module = state_module(package, weights)
    compiled = load_package(package, module)
    if map_location is not None:
        compiled.to(map_location)
    return compiled


def load_package(package: Package, module: torch.nn.Module
                 ) -> CompiledModule:
    """`package`'s kernels running on `module`, checked to be the model
    compiled (its state's names and shapes)."""
    _check_module(module, package)
    return make_compiled(module, package)
