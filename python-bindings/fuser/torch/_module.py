"""The runtime side of fuser.torch: a Package (kernels plus what binds them to
a module's parameters and forward arguments) and CompiledModule, the
nn.Module that runs it.

Nothing here imports MLIR or torch-mlir: a saved package or a generated
ModelNew file runs where only torch and fuser's runtime are installed.

Argument order of the kernels' entry function (the package's "args"): the
module's parameters in named_parameters() order, then its buffers in
named_buffers() order, then the forward's tensor arguments in signature
order. Non-tensor forward arguments (Python numbers, flags) were constants
of the export: a call must pass the same values.
"""

from __future__ import annotations

import base64
import inspect
import json
import linecache
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from .._native import FuserError
from ..artifact import Artifact
from ..loader import load as _load_artifact

PACKAGE_FORMAT = "fuser-torch-package"
# The newest package version this reads. 2: training packages (a backward
# variant beside each forward one, _training.py), which a version 1 reader
# would run forward-only; forward-only packages are still written as 1.
PACKAGE_VERSION = 2
FORWARD_PACKAGE_VERSION = 1

# Manifest dtype names of torch dtypes (fuser.frameworks has the same table
# for the runtime's own checks).
_DTYPES = {
    torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.float64: "f64", torch.int32: "i32", torch.int64: "i64",
    torch.int8: "i8", torch.bool: "i1",
}


# -- remarks ----------------------------------------------------------------

# `file:line:col: remark: message` as MLIR's diagnostic printer writes it.
_DIAGNOSTIC = re.compile(
    r"^(?P<loc>.*?):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<kind>remark|warning|error|note): (?P<msg>.*)$")
# Diagnostics without a file location (`loc(unknown): remark: ...`).
_BARE_DIAGNOSTIC = re.compile(
    r"^(?P<loc>\S*?):? ?(?P<kind>remark|warning|error): (?P<msg>.*)$")


@dataclass
class Remark:
    """One compiler remark: where in the model's Python source (the frame of
    the user's code that made the op), what kind, and the message."""

    file: str
    line: int
    kind: str
    message: str
    variant: str = ""
    notes: List[str] = field(default_factory=list)

    @property
    def source(self) -> str:
        """The source line the remark points at, when the file is readable."""
        if not self.file or self.line <= 0:
            return ""
        return linecache.getline(self.file, self.line).strip()

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.file else "<unknown>"

    def __str__(self) -> str:
        return f"{self.where}: {self.kind}: {self.message}"


def parse_remarks(text: str, variant: str = "") -> List[Remark]:
    """The remarks in fuser-opt's diagnostics output; a `note:` line (MLIR's
    "called from") joins the remark before it."""
    remarks: List[Remark] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line:
            continue
        m = _DIAGNOSTIC.match(line)
        if m:
            file, lineno = m.group("loc"), int(m.group("line"))
        else:
            m = _BARE_DIAGNOSTIC.match(line)
            file, lineno = "", 0
        if m is None:
            if remarks:
                remarks[-1].notes.append(line)
            continue
        if m.group("kind") == "note" and remarks:
            remarks[-1].notes.append(f"{file}:{lineno}: {m.group('msg')}")
            continue
        remarks.append(Remark(file, lineno, m.group("kind"), m.group("msg"),
                              variant))
    return remarks


# -- variants and packages ----------------------------------------------------

def describe_specs(specs, names: Sequence[str]) -> str:
    """`x: f32[?, 8192]` for (dtype, shape) pairs, None for dynamic sizes."""
    return ", ".join(
        f"{n}: {dt}[{', '.join('?' if d is None else str(d) for d in s)}]"
        for n, (dt, s) in zip(names, specs))


def _manifest_function(manifest: dict, name: str) -> dict:
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
        fn = _manifest_function(artifact.manifest_dict, function)
        # (dtype, shape) per argument; None for a dynamic size.
        self.arg_specs: List[Tuple[str, Tuple[Optional[int], ...]]] = [
            (a["dtype"], tuple(d if isinstance(d, int) else None
                               for d in a["shape"]))
            for a in fn["args"]
        ]
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
        spec["variants"] = [
            {"name": v.name, **v.info,
             "files": sorted(v.files())} for v in self.variants]
        return json.dumps(spec, indent=1, sort_keys=True)

    def files(self) -> Dict[str, bytes]:
        out: Dict[str, bytes] = {}
        for v in self.variants:
            out.update(v.files())
        out["fuser-torch.json"] = self.to_json().encode()
        return out

    @classmethod
    def from_files(cls, files: Dict[str, bytes]) -> "Package":
        """Reads the layout files() writes (from a directory, a zip, or the
        string literals of a generated ModelNew file)."""
        try:
            spec = json.loads(files["fuser-torch.json"])
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
        files = {"fuser-torch.json": spec_json.encode()}
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


# -- the module ---------------------------------------------------------------

def _jsonable(value: Any) -> Any:
    """`value` as JSON would give it back (tuples become lists), or raises
    TypeError."""
    return json.loads(json.dumps(value))


class _UnsavedDefault:
    """Stands for a default value the package could not save (not JSON)."""

    def __repr__(self) -> str:
        return "<unsaved default>"


def _signature_from_spec(entries: Sequence[dict]) -> inspect.Signature:
    params = [inspect.Parameter("self",
                                inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for e in entries:
        kind = getattr(inspect.Parameter, e["kind"])
        default = (e["default"] if "default" in e
                   else _UnsavedDefault() if e.get("has_default")
                   else inspect.Parameter.empty)
        params.append(inspect.Parameter(e["name"], kind, default=default))
    return inspect.Signature(params)


def _binding_signature(module: torch.nn.Module, spec: dict
                       ) -> inspect.Signature:
    """The signature calls are bound with: the module's own forward when it
    has the compiled parameters (its defaults are real values, a tensor
    included), else the package's."""
    saved = _signature_from_spec(spec["signature"])
    try:
        own = inspect.signature(type(module).forward)
    except (TypeError, ValueError):
        return saved
    names = [p.name for p in own.parameters.values()
             if p.kind != inspect.Parameter.VAR_KEYWORD]
    if names[1:] == [e["name"] for e in spec["signature"]]:
        return own
    return saved


class CompiledModule(torch.nn.Module):
    """An nn.Module whose forward runs fuser's kernels on the wrapped
    module's parameters and buffers.

    The compiled module shares the wrapped module's parameters, buffers and
    submodules (the same dicts): state_dict() has the same keys,
    load_state_dict(), .to() and in-place weight updates reach the kernels,
    which read the state on every call. Python attributes of the module
    (a `self.multiplier = 2.0`) were constants of the export.

    Attributes: `fuser_package` (the Package), `fuser_remarks` (every
    remark: fused where, or not and why), `fuser_kernels` (kernel names per
    variant), `fuser_fallback` (None, or why forward runs the module
    eagerly); `fuser_report()` formats them.
    """

    def __init__(self, module: torch.nn.Module, package: Package, *,
                 compiler: Optional[Callable] = None,
                 eager_reason: Optional[str] = None,
                 notes: Sequence[Remark] = ()) -> None:
        super().__init__()
        d = self.__dict__
        # 1. The module's state, shared (see the class comment).
        for attr in ("_parameters", "_buffers", "_modules",
                     "_non_persistent_buffers_set"):
            d[attr] = getattr(module, attr)
        d["_fuser_module"] = module
        d["fuser_package"] = package
        d["_fuser_compiler"] = compiler
        d["fuser_fallback"] = eager_reason
        d["_fuser_notes"] = list(notes)
        spec = package.spec
        # 2. Where each kernel argument comes from.
        state, inputs = [], []
        for a in spec["args"]:
            if a["kind"] == "input":
                inputs.append(a["position"])
            else:
                *path, name = a["name"].split(".")
                state.append((tuple(path), name, a["kind"] == "buffer"))
        d["_fuser_state"] = state
        d["_fuser_inputs"] = inputs
        d["_fuser_constants"] = [
            (i, e["name"], e["value"]) for i, e in enumerate(spec["inputs"])
            if "value" in e]
        d["_fuser_arity"] = len(spec["inputs"])
        d["_fuser_signature"] = _binding_signature(module, spec)
        d["_fuser_by_key"] = {}
        d["_fuser_grad_warned"] = False
        if eager_reason is None:
            self._fuser_check_state()

    # -- state ------------------------------------------------------------

    def _fuser_state_tensors(self) -> List[torch.Tensor]:
        out = []
        for path, name, is_buffer in self._fuser_state:
            m = self
            for p in path:
                m = m._modules[p]
            out.append(m._buffers[name] if is_buffer else m._parameters[name])
        return out

    def _fuser_check_state(self) -> None:
        """The module has every parameter and buffer the kernels take."""
        try:
            tensors = self._fuser_state_tensors()
        except KeyError as e:
            names = [a["name"] for a in self.fuser_package.spec["args"]
                     if a["kind"] != "input"]
            raise FuserError(
                f"the module has no parameter or buffer {e} that the "
                f"compiled kernels take (they take {names})") from None
        for t, a in zip(tensors, self.fuser_package.spec["args"]):
            if t is None:
                raise FuserError(f"the module's '{a['name']}' is None; the "
                                 "compiled kernels take a tensor")

    # -- calls ------------------------------------------------------------

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._fuser_call(args, kwargs)

    def _fuser_bind(self, args: tuple, kwargs: dict) -> Sequence[Any]:
        if not kwargs and len(args) == self._fuser_arity:
            return args
        bound = self._fuser_signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = list(bound.arguments.values())[1:]
        if len(values) != self._fuser_arity:
            raise TypeError(
                f"forward takes {self._fuser_arity} arguments as compiled, "
                f"got {len(values)}")
        return values

    def _fuser_call(self, args: tuple, kwargs: dict) -> Any:
        d = self.__dict__
        if d["fuser_fallback"] is not None:
            return d["_fuser_module"](*args, **kwargs)
        return self._fuser_run(self._fuser_tensors(args, kwargs))

    def _fuser_tensors(self, args: tuple, kwargs: dict) -> List[torch.Tensor]:
        """The kernels' tensor arguments for a call: the state, then the
        tensor inputs (the constants checked)."""
        d = self.__dict__
        values = self._fuser_bind(args, kwargs)
        for i, name, value in d["_fuser_constants"]:
            given = values[i]
            if given != value and _jsonable_or_none(given) != value:
                raise FuserError(
                    f"forward argument '{name}' was {value!r} when the "
                    f"module was compiled (a constant of the kernels); got "
                    f"{given!r}: compile again for it")
        tensors = self._fuser_state_tensors()
        for pos in d["_fuser_inputs"]:
            t = values[pos]
            if not isinstance(t, torch.Tensor):
                name = self.fuser_package.spec["inputs"][pos]["name"]
                if isinstance(t, _UnsavedDefault):
                    raise FuserError(
                        f"pass forward argument '{name}': its default (a "
                        "tensor) is not in the package")
                raise FuserError(
                    f"forward argument '{name}' must be a tensor (it was one "
                    f"when compiled); got {type(t).__name__}")
            tensors.append(t)
        return tensors

    def _fuser_run(self, tensors: List[torch.Tensor]) -> Any:
        d = self.__dict__
        if not d["_fuser_grad_warned"] and torch.is_grad_enabled() and any(
                t.requires_grad for t in tensors):
            d["_fuser_grad_warned"] = True
            warnings.warn(
                "fuser.torch: the kernels record no autograd graph; the "
                "outputs carry no gradient (compile with training=True for "
                "fuser's backward; call under torch.no_grad() to silence "
                "this)", RuntimeWarning,
                stacklevel=6)  # The caller of compiled(x), past nn.Module.
        variant = self._fuser_variant(tensors)
        tensors = [t if t.is_contiguous() else t.contiguous() for t in tensors]
        results = variant.entry()(*tensors)
        return self._fuser_unflatten(results)

    def _fuser_variant(self, tensors: Sequence[torch.Tensor]) -> Variant:
        """The variant that takes these kernel arguments (cached by shapes
        and dtypes; compiled on demand where the compiler is)."""
        d = self.__dict__
        key = tuple((t.dtype, t.shape) for t in tensors)
        variant = d["_fuser_by_key"].get(key)
        if variant is None:
            variant = self._fuser_select(key, tensors)
            d["_fuser_by_key"][key] = variant
        return variant

    def _fuser_callable_variants(self) -> List[Variant]:
        """The variants a forward call may run (a training package's
        backward variants are not)."""
        return self.fuser_package.variants

    def _fuser_select(self, key, tensors) -> Variant:
        described = [(_DTYPES.get(dt, str(dt)), tuple(shape))
                     for dt, shape in key]
        candidates = [v for v in self._fuser_callable_variants()
                      if v.matches(described)]
        if candidates:
            return max(candidates, key=Variant.static_dims)
        compiler = self.__dict__["_fuser_compiler"]
        if compiler is not None:
            return compiler(self, tensors)
        names = [a["name"] for a in self.fuser_package.spec["args"]]
        got = describe_specs(described, names)
        have = "\n".join(f"  {v.name}: {describe_specs(v.arg_specs, names)}"
                         for v in self._fuser_callable_variants())
        raise FuserError(
            f"no compiled variant takes these arguments ({got}); the "
            f"package has:\n{have}\nCompile for these shapes (fuser.torch."
            "compile with dynamic=... for dynamic sizes), where torch-mlir "
            "and fuser's compiler are installed")

    def _fuser_unflatten(self, results: Any) -> Any:
        if results is None:
            leaves: list = []
        elif isinstance(results, tuple):
            leaves = list(results)
        else:
            leaves = [results]
        tree = self.fuser_package.spec["outputs"]
        it = iter(leaves)
        out = _build_tree(tree, it)
        return out

    def train(self, mode: bool = True) -> "CompiledModule":
        # The wrapped module's own flag too: its submodules are shared, it
        # is not one of them, and an eager fallback calls it.
        super().train(mode)
        self._fuser_module.training = mode
        return self

    # -- reporting ----------------------------------------------------------

    @property
    def fuser_remarks(self) -> List[Remark]:
        remarks = list(self._fuser_notes)
        for v in self.fuser_package.variants:
            remarks.extend(v.remarks)
        return remarks

    @property
    def fuser_kernels(self) -> Dict[str, List[str]]:
        return {v.name: v.kernels for v in self.fuser_package.variants}

    def fuser_report(self) -> str:
        """A readable account: per variant, its kernels, then the remarks
        grouped by source line (with the line's text)."""
        spec = self.fuser_package.spec
        lines = [f"fuser: {spec.get('model', 'module')} for {spec['chip']} "
                 f"({spec['precision']})"]
        if self.fuser_fallback is not None:
            lines.append(f"runs eagerly (PyTorch): {self.fuser_fallback}")
        for r in self._fuser_notes:
            lines.append(f"  {r}")
        inputs = self.fuser_package.input_names
        n_state = len(spec["args"]) - len(inputs)
        for v in self.fuser_package.variants:
            ks = v.kernels
            status = "fused" if v.fused else "unfused (fusion failed)"
            if v.info.get("cache_hit"):
                status += ", cache hit"
            shapes = self._fuser_variant_shapes(v, n_state, inputs)
            lines.append(f"variant {v.name} ({shapes}): {len(ks)} kernel"
                         f"{'' if len(ks) == 1 else 's'} "
                         f"({', '.join(ks)}); {status}")
            by_line: Dict[str, List[Remark]] = {}
            for r in v.remarks:
                by_line.setdefault(r.where, []).append(r)
            for where, rs in by_line.items():
                src = rs[0].source
                lines.append(f"  {where}" + (f"  {src}" if src else ""))
                counts: Dict[str, int] = {}
                for r in rs:
                    text = f"{r.kind}: {r.message}"
                    counts[text] = counts.get(text, 0) + 1
                for text, n in counts.items():
                    lines.append(f"    {text}" + (f" (x{n})" if n > 1 else ""))
        return "\n".join(lines)

    def _fuser_variant_shapes(self, v: Variant, n_state: int,
                              inputs: Sequence[str]) -> str:
        return describe_specs(v.arg_specs[n_state:], inputs)

    def extra_repr(self) -> str:
        if self.fuser_fallback is not None:
            return f"fuser: eager fallback ({self.fuser_fallback})"
        parts = [f"{v.name}: {len(v.kernels)} kernel"
                 f"{'' if len(v.kernels) == 1 else 's'}"
                 for v in self.fuser_package.variants]
        return f"fuser {self.fuser_package.spec['chip']}: " + ", ".join(parts)


def _jsonable_or_none(value: Any) -> Any:
    try:
        return _jsonable(value)
    except (TypeError, ValueError):
        return None


def _build_tree(tree: dict, leaves) -> Any:
    kind = tree["type"]
    if kind == "tensor":
        try:
            return next(leaves)
        except StopIteration:
            raise FuserError("the kernels returned fewer results than the "
                             "module's output has tensors") from None
    if kind == "none":
        return None
    items = [_build_tree(c, leaves) for c in tree["items"]]
    if kind == "tuple":
        return tuple(items)
    if kind == "list":
        return items
    if kind == "dict":
        return dict(zip(tree["keys"], items))
    raise FuserError(f"unknown output structure '{kind}' in the package")


def compiled_class(base: type, spec: dict, name: str) -> type:
    """A subclass of `base` whose forward has the module's signature (so
    inspect.signature(compiled.forward) reads as the original's)."""

    def forward(self, *args, **kwargs):
        return self._fuser_call(args, kwargs)

    forward.__signature__ = _signature_from_spec(spec["signature"])
    forward.__doc__ = (f"{name}.forward through fuser's kernels (same "
                       "arguments as the original).")
    return type(f"Fuser{name}", (base,), {"forward": forward,
                                           "__module__": base.__module__})


def make_compiled(module: torch.nn.Module, package: Package, **kw: Any
                  ) -> CompiledModule:
    base = CompiledModule
    if package.spec.get("training"):
        from ._training import TrainingModule
        base = TrainingModule
    cls = compiled_class(base, package.spec,
                         package.spec.get("model", "Module"))
    return cls(module, package, **kw)


def check_init_arguments(model_cls: type, args: tuple, kwargs: dict,
                         recorded: Sequence[Any]) -> None:
    """For generated ModelNew files: the constructor arguments must be those
    the kernels were compiled for (shapes and constants are baked in)."""
    sig = inspect.signature(model_cls.__init__)
    try:
        got = sig.bind(None, *args, **kwargs)
        want = sig.bind(None, *recorded)
    except TypeError as e:
        raise TypeError(f"{model_cls.__name__}: {e}") from None
    got.apply_defaults()
    want.apply_defaults()
    for name, value in want.arguments.items():
        if name == list(sig.parameters)[0]:
            continue
        have = got.arguments.get(name)
        if _jsonable_or_none(have) != _jsonable_or_none(value) and \
                have != value:
            raise FuserError(
                f"ModelNew's kernels were compiled for {name}={value!r}; got "
                f"{have!r} (regenerate the file with python -m "
                "fuser.torch.kernelbench for other constructor arguments)")
