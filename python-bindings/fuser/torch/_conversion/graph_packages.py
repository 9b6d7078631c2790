"""Graph packages: the fuser.torch packages of the graphs that
torch.compile(backend="fuser") captures (_dynamo_backend.py), kept in the cache
directory as <root>/graphs/<key>.fuser.zip, so that a later process, or a
machine with fuser's runtime but without torch-mlir or the compiler tools,
loads a graph instead of compiling it.

The key is the graph's code, its arguments (dtype, shape with ? for dynamic
dims, requires_grad), whether it trains, the options and fuser's version.
Beside each package: the compiler tools' identity (<key>.fuser.tools.json;
a package compiled by other tools than this machine's is a miss) and the
graph's code (<key>.fuser.graph.py: which graph the package is). Writes go
to a temporary name renamed into place: concurrent processes write the same
bytes.

EmbeddedGraphPackages are the same packages held as texts by a generated
ModelNew file (python -m fuser.torch.kernelbench on a partitioned model):
looked up by the same key, never written.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

import torch

from ... import __version__
from .._lowering import fx_graph
from .._package import Package
from .._save_load import load, load_package, save
from .cache import tools_identity

FORMAT = 1


def tools_or_none() -> Optional[list]:
    """The compiler tools' identity (path, size, mtime), or None where
    there are none."""
    try:
        return tools_identity()
    except Exception:  # noqa: BLE001 - no tools here: packages as they are.
        return None


def graph_key(gm: torch.fx.GraphModule, tensors: Sequence[torch.Tensor],
              training: bool, options: Mapping[str, Any],
              pipeline: Mapping[str, Any]) -> str:
    """The key of kernel function `gm` called with `tensors`: `options`
    are chip, precision and format, `pipeline` the other pipeline
    options."""
    args = []
    for p, t in zip(fx_graph.placeholders(gm.graph), tensors):
        val = p.meta["val"]
        shape = ["?" if isinstance(s, torch.SymInt) else int(s)
                 for s in val.shape]
        args.append([str(val.dtype), shape, bool(t.requires_grad)])
    material = json.dumps({
        "format": FORMAT, "code": gm.code.strip(), "args": args,
        "training": training, "options": dict(options),
        "pipeline": dict(pipeline), "fuser_version": __version__,
    }, sort_keys=True, default=str)
    return hashlib.sha256(material.encode()).hexdigest()


class GraphPackages:
    """The graph packages under `root` (the cache directory's graphs/)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / f"{key}.fuser.zip"

    def missing(self, key: str) -> str:
        """What to do where the package of `key` is missing and nothing
        compiles."""
        return (f"the graph cache has no package for it ({self.path(key)}): "
                "run the model once where they are installed and copy the "
                "cache directory ($FUSER_CACHE_DIR) here")

    def load(self, key: str, module: torch.nn.Module):
        """The package of `key` running on `module`, or None (missing, or
        compiled by other tools than this machine's)."""
        path = self.path(key)
        if not path.exists():
            return None
        here = tools_or_none()
        if here is not None:
            try:
                tools = path.with_suffix(".tools.json").read_text()
                if json.loads(tools) != here:
                    return None
            except (OSError, ValueError):
                return None
        return load(path, module=module)

    def save(self, key: str, compiled, code: str) -> None:
        """Writes `compiled`'s package as `key`, with the tools' identity
        and the graph's `code` beside it."""
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".fuser.zip",
                                   dir=path.parent)
        os.close(fd)
        try:
            save(compiled, tmp)
            os.chmod(tmp, 0o644)
            Path(tmp + ".tools").write_text(json.dumps(tools_or_none()))
            os.replace(tmp + ".tools", path.with_suffix(".tools.json"))
            Path(tmp + ".code").write_text(code)
            os.replace(tmp + ".code", path.with_suffix(".graph.py"))
            os.replace(tmp, path)
        finally:
            for leftover in (tmp, tmp + ".tools", tmp + ".code"):
                if os.path.exists(leftover):
                    os.remove(leftover)


# A graph package as a ModelNew file holds it: (spec JSON, {kernel file
# name: text}), as Package.from_texts takes them.
PackageTexts = Tuple[str, Dict[str, str]]


class EmbeddedGraphPackages:
    """Graph packages by key, held in memory (a ModelNew file's texts)."""

    def __init__(self, packages: Mapping[str, PackageTexts]) -> None:
        self.packages = dict(packages)

    def missing(self, key: str) -> str:
        return (f"none of the ModelNew file's {len(self.packages)} graph "
                "package(s) is this graph's. A graph's key covers its code "
                "(as this torch traces it), its arguments' shapes, dtypes "
                "and requires_grad flags, the module's train or eval mode "
                "and fuser's version; the file was made for get_inputs()'s "
                "shapes, with the versions its header names (regenerate it "
                "with python -m fuser.torch.kernelbench for others)")

    def load(self, key: str, module: torch.nn.Module):
        texts = self.packages.get(key)
        if texts is None:
            return None
        return load_package(_shared_package(texts), module)


# Packages made from a ModelNew file's texts, by the texts' identity (held,
# so that an id is not reused): every instance of the file shares one
# Package, whose CUDA modules load once per device, as a whole-model
# ModelNew's do.
_SHARED: Dict[int, Tuple[PackageTexts, Package]] = {}


def _shared_package(texts: PackageTexts) -> Package:
    held = _SHARED.get(id(texts))
    if held is None or held[0] is not texts:
        held = _SHARED[id(texts)] = (texts, Package.from_texts(*texts))
    return held[1]

    def save(self, key: str, compiled, code: str) -> None:
        pass  # The file's packages are fixed.
