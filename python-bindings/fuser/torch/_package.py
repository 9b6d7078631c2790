"""What fuser.torch compiles a module into, apart from the module's state:
a Package (the spec, JSON) and its Variants (the kernels). The layer every
other one stands on: it needs torch, fuser's Artifact and loader, nothing
that compiles.

A package on disk is a directory, or a zip file when the path ends in
`.zip` (fuser.torch.save, _save_load.py):

    fuser-torch.json             the spec: format and version, chip,
                                 precision, the kernels' argument order
                                 (parameter and buffer names, then forward's
                                 tensor arguments), forward's signature and
                                 constants, the output structure, and per
                                 variant its shapes, dynamic dims and remarks
    kernels/<variant>.ptx        the kernels (or .cubin)
    kernels/<variant>.manifest.json
    weights.pt                   optional: the state_dict (save(weights=True))

Argument order of the kernels' entry function (the spec's "args"): the
module's parameters in named_parameters() order, then its buffers in
named_buffers() order, then the forward's tensor arguments in signature
order. Non-tensor forward arguments (Python numbers, flags) were constants
of the export: a call must pass the same values.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch

from .. import _dtypes
from .._native import FuserError
from ..artifact import Artifact
from ..loader import load as _load_artifact
from ._lowering.fx_graph import run_in_place_of_kernels
from ._remarks import Remark, parse_remarks

PACKAGE_FORMAT = "fuser-torch-package"
# The newest package version this reads. 2: training packages (a backward
# variant beside each forward one, _conversion/training.py), which a
# version 1 reader would run forward-only; forward-only packages are still
# written as 1. 3: packages with autocast variants, which an older reader
# would run for calls without autocast.
PACKAGE_VERSION = 3
FORWARD_PACKAGE_VERSION = 1
TRAINING_PACKAGE_VERSION = 2
AUTOCAST_PACKAGE_VERSION = 3
SPEC = "fuser-torch.json"

# Torch dtypes by manifest name and back (fuser._dtypes has the table).
TORCH_DTYPES: Dict[str, torch.dtype] = _dtypes.torch_dtypes(torch)
DTYPE_NAMES: Dict[torch.dtype, str] = {dt: n for n, dt in TORCH_DTYPES.items()}

# CUDA autocast dtypes by the names variants record (info "autocast":
# "bf16"): such a variant computes what the module does under
# torch.autocast("cuda", dtype) and runs only calls under it.
AUTOCAST_DTYPES: Dict[str, torch.dtype] = {"bf16": torch.bfloat16,
                                           "f16": torch.float16}


def current_autocast() -> Optional[str]:
    """The CUDA autocast this thread runs under: "bf16", "f16", or None."""
    if not torch.is_autocast_enabled("cuda"):
        return None
    dtype = torch.get_autocast_dtype("cuda")
    for name, dt in AUTOCAST_DTYPES.items():
        if dt == dtype:
            return name
    raise FuserError(f"torch.autocast to {dtype}: fuser compiles autocast "
                     "to bfloat16 or float16")


def jsonable(value: Any) -> Any:
    """`value` as JSON would give it back (tuples become lists), or raises
    TypeError."""
    return json.loads(json.dumps(value))


def jsonable_or_none(value: Any) -> Any:
    try:
        return jsonable(value)
    except (TypeError, ValueError):
        return None


def describe_specs(specs, names: Sequence[str]) -> str:
    """`x: f32[?, 8192]` for (dtype, shape) pairs, None for dynamic sizes."""
    return ", ".join(
        f"{n}: {dt}[{', '.join('?' if d is None else str(d) for d in s)}]"
        for n, (dt, s) in zip(names, specs))


def manifest_function(manifest: dict, name: str) -> dict:
    for fn in manifest.get("functions", []):
        if fn.get("name") == name:
            return fn
    names = [f.get("name") for f in manifest.get("functions", [])]
    raise FuserError(f"the manifest has no function '{name}' (has {names})")


class Variant:
    """One compiled form of the model: an Artifact for some argument shapes
    (static, or with dynamic dims) and dtypes. Its CUDA module is loaded on
    first use."""

    def __init__(self, name: str, artifact: Artifact, function: str,
                 info: Optional[dict] = None) -> None:
        self.name = name
        self.artifact = artifact
        self.function_name = function
        # JSON-able facts saved with the package: dynamic dims, whether the
        # groups were fused, the remarks text, the cache key.
        self.info = dict(info or {})
        fn = manifest_function(artifact.manifest_dict, function)
        # (dtype, shape) per argument; None for a dynamic size.
        self.arg_specs: List[Tuple[str, Tuple[Optional[int], ...]]] = [
            (a["dtype"], tuple(d if isinstance(d, int) else None
                               for d in a["shape"]))
            for a in fn["args"]
        ]
        # The fx graph the kernels were compiled from, where the compile
        # kept it (not saved), and whether it updates the arguments the
        # kernels mutate in place (dynamo's graphs do; AOTAutograd's
        # functional ones return their new values first, as the kernels).
        self.graph: Optional[torch.fx.GraphModule] = None
        self.graph_mutates_in_place = False
        self._entry = None

    @property
    def kernels(self) -> List[str]:
        return self.artifact.kernel_names

    @property
    def remarks(self) -> List[Remark]:
        """The compiler's remarks, after the notes fuser.torch added (a
        fusion that failed and was retried unfused, say)."""
        notes = [Remark("", 0, "remark", n, self.name)
                 for n in self.info.get("notes", [])]
        return notes + parse_remarks(self.info.get("remarks", ""), self.name)

    @property
    def fused(self) -> bool:
        return bool(self.info.get("fused", True))

    def entry(self):
        if self._entry is None:
            self._entry = _load_artifact(self.artifact)[self.function_name]
        return self._entry

    def matches(self, key: Sequence[Tuple[str, Tuple[int, ...]]]) -> bool:
        if len(key) != len(self.arg_specs):
            return False
        for (dtype, shape), (want_dtype, want_shape) in zip(key,
                                                            self.arg_specs):
            if dtype != want_dtype or len(shape) != len(want_shape):
                return False
            if any(w is not None and w != s for s, w in zip(shape, want_shape)):
                return False
        return True

    def static_dims(self) -> int:
        return sum(d is not None for _, s in self.arg_specs for d in s)

    def files(self) -> Dict[str, bytes]:
        """The variant's files in a package (path -> bytes)."""
        out = {f"kernels/{self.name}.manifest.json":
               self.artifact.manifest.encode()}
        if self.artifact.cubin is not None:
            out[f"kernels/{self.name}.cubin"] = self.artifact.cubin
        if self.artifact.ptx:
            out[f"kernels/{self.name}.ptx"] = self.artifact.ptx.encode()
        return out


class Package:
    """What a compiled module is, apart from the module's state: the spec
    (JSON: argument order, parameter and buffer names, forward signature,
    constants, output structure, options) and the variants' kernels."""

    def __init__(self, spec: dict, variants: Sequence[Variant] = ()) -> None:
        self.spec = spec
        self.variants: List[Variant] = list(variants)

    # The spec with the variants' own entries, as saved.
    def to_json(self) -> str:
        spec = dict(self.spec)
        if any(v.info.get("autocast") for v in self.variants):
            spec["version"] = max(spec.get("version", 0),
                                  AUTOCAST_PACKAGE_VERSION)
        spec["variants"] = [
            {"name": v.name, **v.info,
             "files": sorted(v.files())} for v in self.variants]
        return json.dumps(spec, indent=1, sort_keys=True)

    def files(self) -> Dict[str, bytes]:
        out: Dict[str, bytes] = {}
        for v in self.variants:
            out.update(v.files())
        out[SPEC] = self.to_json().encode()
        return out

    @classmethod
    def from_files(cls, files: Dict[str, bytes]) -> "Package":
        """Reads the layout files() writes (from a directory, a zip, or the
        string literals of a generated ModelNew file)."""
        try:
            spec = json.loads(files[SPEC])
        except KeyError:
            raise FuserError("not a fuser.torch package: no "
                             "fuser-torch.json") from None
        if spec.get("format") != PACKAGE_FORMAT:
            raise FuserError(f"not a fuser.torch package (format "
                             f"{spec.get('format')!r})")
        if spec.get("version", 0) > PACKAGE_VERSION:
            raise FuserError(
                f"package version {spec['version']} is newer than this "
                f"fuser reads ({PACKAGE_VERSION}): update fuser")
        variants = []
        for entry in spec.pop("variants", []):
            name = entry["name"]

            def get(suffix: str) -> Optional[bytes]:
                return files.get(f"kernels/{name}.{suffix}")

            manifest = get("manifest.json")
            if manifest is None:
                raise FuserError(f"package variant '{name}' has no manifest")
            ptx, cubin = get("ptx"), get("cubin")
            if ptx is None and cubin is None:
                raise FuserError(f"package variant '{name}' has no PTX or "
                                 "cubin")
            info = {k: v for k, v in entry.items()
                    if k not in ("name", "files")}
            variants.append(Variant(
                name,
                Artifact(ptx=ptx.decode() if ptx else "",
                         manifest=manifest.decode(), cubin=cubin),
                spec["function"], info))
        return cls(spec, variants)

    @classmethod
    def from_texts(cls, spec_json: str, kernels: Dict[str, str]) -> "Package":
        """From the string literals of a generated ModelNew file: the spec
        and {file name: text} (cubins base64-encoded, `*.cubin.b64`)."""
        files = {SPEC: spec_json.encode()}
        for name, text in kernels.items():
            if name.endswith(".b64"):
                files[f"kernels/{name[:-4]}"] = base64.b64decode(text)
            else:
                files[f"kernels/{name}"] = text.encode()
        return cls.from_files(files)

    @property
    def input_names(self) -> List[str]:
        return [a["name"] for a in self.spec["args"]
                if a["kind"] == "input"]


def _graph_in_place_of_kernels(variant: Variant, *tensors) -> tuple:
    """What `variant`'s kernels return, from its fx graph: the kernels
    return the new values of the arguments they mutate (BatchNorm's running
    statistics) first, which a graph updating them in place does not."""
    if variant.graph is None:
        raise FuserError(f"variant '{variant.name}' keeps no fx graph to run "
                         "in place of its kernels")
    results = run_in_place_of_kernels(variant.graph, *tensors)
    if not variant.graph_mutates_in_place:
        return results
    mutated = variant.info.get("mutations") or []
    return tuple(tensors[i] for i in mutated) + results


@contextlib.contextmanager
def graphs_in_place_of_kernels():
    """Meanwhile, every variant runs the fx graph its kernels were compiled
    from (run_in_place_of_kernels): a CPU run, where no kernel launches,
    still reaches every graph, and each compiles (and writes its package)."""
    saved = Variant.entry
    Variant.entry = lambda v: functools.partial(_graph_in_place_of_kernels, v)
    try:
        yield
    finally:
        Variant.entry = saved
