"""fuser.torch.compile: an nn.Module through torch-mlir and fuser.

1. Bind the example inputs to forward's signature: tensors become kernel
   arguments, anything else (numbers, flags) a constant of the export.
2. Export a functional wrapper (torch.func.functional_call) whose arguments
   are the module's parameters and buffers, then the tensor inputs, with
   torch.export on `meta` tensors (no memory, no GPU; GroupNorm keeps its
   broadcast form, ../shared/docs/FRONTEND.md), and lower it with torch-mlir's
   FX importer to linalg on tensors. The weights are never frozen into the
   IR. Each op's location is its frame in the user's code, so the remarks
   say which line of the model an op came from.
3. Compile the text with fuser.compile (the registered GPU pipeline, with
   remarks), through the on-disk cache (_cache.py). If fusion fails, compile
   again with fuse=false (every op alone, the fallback lowering) with a
   warning; if that fails too, or the export does, the module runs eagerly
   and says why. fallback=False raises at the first failure instead.

torch-mlir is imported here only, on the first compile.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import sys
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import torch

from .. import __version__
from .._native import FuserError
from ..artifact import Artifact
from ..compiler import find_tools
from . import _module
from ._cache import CompileCache, cached_compile
from ._module import (CompiledModule, Package, Remark, Variant,
                      make_compiled)

DynamicSpec = Union[None, bool, str, Mapping[Union[str, int], Any]]

# Kept in the remarks of a variant that failed to fuse: the first lines of
# the compiler's error.
_ERROR_LINES = 12


def _meta(t: torch.Tensor) -> torch.Tensor:
    return torch.empty(t.shape, dtype=t.dtype, device="meta")


def _short(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    lines = text.splitlines()
    if len(lines) > _ERROR_LINES:
        lines = lines[:_ERROR_LINES] + [f"... ({len(lines) - _ERROR_LINES} "
                                        "more lines)"]
    return "\n".join(lines)


class _Functional(torch.nn.Module):
    """forward(*state, *tensor_inputs) = module(*inputs) with the state
    swapped in by functional_call. The module is held outside the
    nn.Module registry, so export sees no parameters of its own (they would
    be frozen into the IR as constants)."""

    def __init__(self, module: torch.nn.Module, state_names: Sequence[str],
                 template: Sequence[Any], tensor_positions: Sequence[int],
                 keyword_names: Sequence[Optional[str]]) -> None:
        super().__init__()
        self.__dict__["_target"] = module
        self._names = list(state_names)
        self._template = list(template)
        self._positions = list(tensor_positions)
        self._keywords = list(keyword_names)

    def forward(self, *flat):
        n = len(self._names)
        values = list(self._template)
        for pos, t in zip(self._positions, flat[n:]):
            values[pos] = t
        args = [v for v, k in zip(values, self._keywords) if k is None]
        kwargs = {k: v for v, k in zip(values, self._keywords)
                  if k is not None}
        return torch.func.functional_call(
            self._target, dict(zip(self._names, flat[:n])), tuple(args),
            kwargs)


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def _skipped_dirs() -> Tuple[str, ...]:
    """Frames in these directories are not the user's: torch, torch-mlir
    and fuser itself (the functional wrapper)."""
    import torch_mlir

    dirs = [os.path.dirname(torch.__file__),
            list(torch_mlir.__path__)[0],  # A namespace package.
            os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    return tuple(os.path.join(d, "") for d in dirs)


def _locate_in_user_code(graph) -> None:
    """Rewrites each node's stack trace (of an fx graph) to its innermost
    frame in the user's code, which torch-mlir turns into the op's location:
    remarks then name the model's line (`model.py:20`) rather than torch's
    internals."""
    skipped = _skipped_dirs()
    for node in graph.nodes:
        trace = node.meta.get("stack_trace")
        if not trace:
            continue
        frames = _FRAME.findall(trace)
        if not frames:
            continue
        user = [f for f in frames
                if not f[0].startswith(skipped) and not f[0].startswith("<")]
        file, line, fn = (user or frames)[-1]
        node.meta["stack_trace"] = f'  File "{file}", line {line}, in {fn}\n'


def import_graph(gm: "torch.fx.GraphModule") -> str:
    """An aten-level fx graph (placeholders in, a tuple out, fake tensors in
    node.meta["val"], e.g. AOTAutograd's partitioned forward or backward) as
    linalg on tensors through torch-mlir's FX importer, its ops located at
    the user's lines as export() does."""
    from torch_mlir import fx

    _locate_in_user_code(gm.graph)
    # Factory ops (scalar_tensor in a relu's backward, say) name the
    # tracing device, which torch-mlir's lowering refuses; fuser's kernels
    # decide where they run.
    changed = False
    for node in gm.graph.nodes:
        if node.op == "call_function" and "device" in node.kwargs:
            node.kwargs = {k: v for k, v in node.kwargs.items()
                           if k != "device"}
            changed = True
    if changed:
        gm.recompile()
    module = fx.stateless_fx_import(gm, output_type="linalg-on-tensors")
    return module.operation.get_asm(enable_debug_info=True)


def _tree_json(spec) -> dict:
    """The output pytree's structure as JSON (tensors, tuples, lists, dicts
    with JSON keys)."""
    if spec.is_leaf():
        return {"type": "tensor"}
    children = (list(spec.children()) if hasattr(spec, "children")
                else list(spec.children_specs))
    items = [_tree_json(c) for c in children]
    if spec.type is tuple:
        return {"type": "tuple", "items": items}
    if spec.type is list:
        return {"type": "list", "items": items}
    if spec.type is dict:
        keys = list(spec.context)
        if not all(isinstance(k, (str, int, float, bool)) for k in keys):
            raise FuserError("the module's output dict has keys fuser.torch "
                             "cannot save")
        return {"type": "dict", "keys": keys, "items": items}
    if spec.type is type(None):
        return {"type": "none"}
    raise FuserError(f"the module returns a {spec.type.__name__}; "
                     "fuser.torch handles tensors and tuples, lists and "
                     "dicts of them")


def _count_tensors(tree: dict) -> int:
    if tree["type"] == "tensor":
        return 1
    return sum(_count_tensors(c) for c in tree.get("items", []))


class _Compiler:
    """Compiles variants of one module: the binding of its forward, the
    options, and the cache."""

    def __init__(self, module: torch.nn.Module, example_inputs: Sequence[Any],
                 *, chip: str, precision: str, format: str,
                 options: Mapping[str, Any], cache: Optional[CompileCache],
                 fallback: bool, report: bool,
                 retry_unfused: Optional[bool] = None) -> None:
        self.module = module
        self.chip, self.precision, self.format = chip, precision, format
        self.options = dict(options)
        self.cache = cache
        self.fallback = fallback
        # Whether a failed fusion is compiled again unfused: with fallback
        # unless the caller says (fuser.torch.elementwise never runs eagerly
        # but keeps the unfused kernels).
        self.retry_unfused = fallback if retry_unfused is None else retry_unfused
        self.report = report
        self.model_name = type(module).__name__
        self.spec = self._spec(module, example_inputs)

    # 1. The binding: forward's signature, state names, inputs, constants.
    def _spec(self, module, example_inputs) -> dict:
        sig = inspect.signature(module.forward)
        params = list(sig.parameters.values())
        P = inspect.Parameter
        if any(p.kind == P.VAR_POSITIONAL for p in params):
            # forward(*xs): one positional entry per example input.
            entries = [{"name": f"arg{i}", "kind": "POSITIONAL_ONLY"}
                       for i in range(len(example_inputs))]
            values = list(example_inputs)
            keywords: List[Optional[str]] = [None] * len(values)
        else:
            bound = sig.bind(*example_inputs)
            bound.apply_defaults()
            values, entries, keywords = [], [], []
            for p in params:
                if p.kind == P.VAR_KEYWORD:
                    continue
                values.append(bound.arguments[p.name])
                entry = {"name": p.name, "kind": p.kind.name}
                if p.default is not P.empty:
                    entry["has_default"] = True
                    try:
                        entry["default"] = _module._jsonable(p.default)
                    except (TypeError, ValueError):
                        pass  # A tensor default, say: bound at call time.
                entries.append(entry)
                keywords.append(p.name if p.kind == P.KEYWORD_ONLY else None)
        inputs = []
        for e, v in zip(entries, values):
            if isinstance(v, torch.Tensor):
                inputs.append({"name": e["name"], "tensor": True})
                continue
            if isinstance(v, (list, tuple, dict)) and any(
                    isinstance(x, torch.Tensor)
                    for x in (v.values() if isinstance(v, dict) else v)):
                raise FuserError(
                    f"forward argument '{e['name']}' holds tensors in a "
                    f"{type(v).__name__}; fuser.torch takes tensors as "
                    "arguments of their own")
            try:
                inputs.append({"name": e["name"],
                               "value": _module._jsonable(v)})
            except (TypeError, ValueError):
                raise FuserError(
                    f"forward argument '{e['name']}' is a "
                    f"{type(v).__name__}, neither a tensor nor a JSON "
                    "value") from None
        self.template = values
        self.signature = sig
        self.keywords = keywords
        self.positions = [i for i, e in enumerate(inputs) if e.get("tensor")]
        state_names = ([n for n, _ in module.named_parameters()]
                       + [n for n, _ in module.named_buffers()])
        n_params = len(list(module.named_parameters()))
        self.state_names = state_names
        args = [{"kind": "parameter" if i < n_params else "buffer",
                 "name": n} for i, n in enumerate(state_names)]
        args += [{"kind": "input", "name": inputs[p]["name"], "position": p}
                 for p in self.positions]
        return {
            "format": _module.PACKAGE_FORMAT,
            "version": _module.FORWARD_PACKAGE_VERSION,
            "fuser_version": __version__,
            "torch_version": torch.__version__,
            "model": self.model_name,
            "function": "main",
            "chip": self.chip,
            "precision": self.precision,
            "image": self.format,
            "options": {k: _module._jsonable_or_none(v)
                        for k, v in self.options.items()},
            "signature": entries,
            "inputs": inputs,
            "args": args,
            "outputs": {"type": "tensor"},
        }

    def tensor_inputs(self, example_inputs: Sequence[Any]
                      ) -> List[torch.Tensor]:
        """The tensor arguments among forward arguments `example_inputs`."""
        if any(p.kind == inspect.Parameter.VAR_POSITIONAL
               for p in self.signature.parameters.values()):
            values = list(example_inputs)
        else:
            bound = self.signature.bind(*example_inputs)
            bound.apply_defaults()
            values = [bound.arguments[e["name"]]
                      for e in self.spec["signature"]]
        tensors = [values[p] for p in self.positions]
        if not all(isinstance(t, torch.Tensor) for t in tensors):
            raise TypeError("the example inputs have no tensor where the "
                            "first ones had one")
        return tensors

    def state_tensors(self) -> List[torch.Tensor]:
        return ([t for _, t in self.module.named_parameters()]
                + [t for _, t in self.module.named_buffers()])

    # dynamic=... -> torch.export dynamic_shapes for the flat arguments.
    def dynamic_shapes(self, dynamic: DynamicSpec, inputs: Sequence[torch.Tensor]
                       ) -> Tuple[Optional[tuple], Dict[str, Dict[str, str]]]:
        if dynamic is None or dynamic is False:
            return None, {}
        names = [self.spec["inputs"][p]["name"] for p in self.positions]
        per_input: Dict[int, Dict[int, Any]] = {}
        if dynamic is True or dynamic == "batch":
            for i, t in enumerate(inputs):
                if t.dim() >= 1:
                    per_input[i] = {0: "batch"}
        elif isinstance(dynamic, Mapping):
            for key, dims in dynamic.items():
                if isinstance(key, int):
                    i = key
                elif key in names:
                    i = names.index(key)
                else:
                    raise ValueError(
                        f"dynamic names '{key}', which is not a tensor "
                        f"argument of forward ({', '.join(names)})")
                if not 0 <= i < len(names):
                    raise ValueError(f"dynamic: no tensor argument {i}")
                if isinstance(dims, int):
                    dims = [dims]
                if isinstance(dims, Mapping):
                    per_input[i] = dict(dims)
                else:
                    per_input[i] = {d: f"{names[i]}_dim{d}" for d in dims}
        else:
            raise ValueError(
                "dynamic must be None, True or 'batch' (dim 0 of every "
                "tensor argument), or {argument: dims} with dims an int, a "
                "list of ints or {dim: name}")
        made: Dict[str, Any] = {}
        specs: List[Optional[dict]] = [None] * len(self.state_names)
        described: Dict[str, Dict[str, str]] = {}
        for i in range(len(inputs)):
            dims = per_input.get(i)
            if not dims:
                specs.append(None)
                continue
            spec = {}
            for d, name in dims.items():
                if isinstance(name, str):
                    if name not in made:
                        made[name] = torch.export.Dim(name)
                    spec[int(d)] = made[name]
                    label = name
                else:  # A torch.export.Dim (or Dim.DYNAMIC) as given.
                    spec[int(d)] = name
                    label = getattr(name, "__name__", str(name))
                described.setdefault(names[i], {})[str(d)] = label
            specs.append(spec)
        return (tuple(specs),), described

    # 2. Export to linalg on tensors.
    def program(self, state: Sequence[torch.Tensor],
                inputs: Sequence[torch.Tensor], dynamic_shapes):
        """torch.export of the functional wrapper on meta tensors (before
        decompositions): (state..., tensor inputs...) -> flat outputs."""
        wrapper = _Functional(self.module, self.state_names, self.template,
                              self.positions, self.keywords)
        flat = tuple(_meta(t) for t in state) + tuple(_meta(t) for t in inputs)
        return torch.export.export(wrapper, flat,
                                   dynamic_shapes=dynamic_shapes)

    def export(self, state: Sequence[torch.Tensor],
               inputs: Sequence[torch.Tensor], dynamic_shapes) -> Tuple[str, dict]:
        from torch_mlir import fx
        from torch_mlir.extras.fx_decomp_util import get_decomposition_table

        program = self.program(state, inputs, dynamic_shapes)
        outputs = _tree_json(program.call_spec.out_spec)
        program = program.run_decompositions(get_decomposition_table())
        _locate_in_user_code(program.graph_module.graph)
        module = fx.export_and_import(program, output_type="linalg-on-tensors",
                                      decomposition_table={})
        return module.operation.get_asm(enable_debug_info=True), outputs

    # 3. Compile, with the unfused retry.
    def compile_text(self, text: str) -> Tuple[Any, dict]:
        return compile_ir(text, chip=self.chip, precision=self.precision,
                          format=self.format, options=self.options,
                          cache=self.cache, retry_unfused=self.retry_unfused)

    def variant(self, name: str, state: Sequence[torch.Tensor],
                inputs: Sequence[torch.Tensor], dynamic: DynamicSpec
                ) -> Variant:
        """Exports and compiles one variant; raises on failure."""
        dynamic_shapes, described = self.dynamic_shapes(dynamic, inputs)
        text, outputs = self.export(state, inputs, dynamic_shapes)
        self.spec["outputs"] = outputs  # The same for every variant.
        art, info = self.compile_text(text)
        art = self.named_arguments(art)
        info["dynamic"] = described
        variant = Variant(name, art, self.spec["function"], info)
        results = len(_module._manifest_function(
            art.manifest_dict, self.spec["function"]).get("results", []))
        if results != _count_tensors(outputs):
            raise FuserError(
                f"the compiled function returns {results} tensors, the "
                f"module's output has {_count_tensors(outputs)}")
        return variant

    def named_arguments(self, art: Artifact,
                        names: Optional[Sequence[str]] = None) -> Artifact:
        """The artifact with the manifest's arguments named as in the module
        (`lin.weight`, `x`; or `names`) instead of `arg0`, so the runtime's
        messages name them. The C header is dropped: a package does not
        carry it."""
        if names is None:
            names = [entry["name"] for entry in self.spec["args"]]
        manifest = art.manifest_dict
        fn = _module._manifest_function(manifest, self.spec["function"])
        if len(fn.get("args", [])) != len(names):
            raise FuserError(
                f"the compiled function takes {len(fn.get('args', []))} "
                f"arguments; the module has {len(names)} "
                "parameters, buffers and tensor inputs")
        for arg, name in zip(fn["args"], names):
            arg["name"] = name
        return Artifact(ptx=art.ptx, manifest=json.dumps(manifest, indent=2,
                                                         sort_keys=True),
                        cubin=art.cubin,
                        remarks=art.remarks)

    def unique_name(self, package: Package, base: str) -> str:
        taken = {v.name for v in package.variants}
        if base not in taken:
            return base
        i = 1
        while f"{base}{i}" in taken:
            i += 1
        return f"{base}{i}"

    def on_demand(self, compiled: CompiledModule,
                  tensors: Sequence[torch.Tensor]) -> Variant:
        """A call whose shapes or dtypes no variant takes: compile a static
        variant for them (as torch.compile recompiles)."""
        n = len(self.state_names)
        package = compiled.fuser_package
        name = self.unique_name(package, "static")
        variant = self.variant(name, tensors[:n], tensors[n:], None)
        package.variants.append(variant)
        if self.report:
            print(compiled.fuser_report(), file=sys.stderr)
        return variant


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
                     f"(fuse=false):\n{_short(e)}")
        # Slower kernels, not wrong ones: say so where users look.
        warnings.warn("fuser.torch: fusion failed, so every op is compiled "
                      f"alone (fuse=false; slower): {_short(e)}",
                      RuntimeWarning, stacklevel=3)
        options["fuse"] = False
        art, hit = cached_compile(text, chip=chip, precision=precision,
                                  format=format, options=options, cache=cache)
        fused = False
    return art, {"fused": fused, "cache_hit": hit, "notes": notes,
                 "remarks": art.remarks}


def make_cache(cache: Union[bool, str, "os.PathLike[str]", None]
               ) -> Optional[CompileCache]:
    """compile()'s `cache` argument as a CompileCache (or None)."""
    if cache is True:
        return CompileCache()
    if cache is False or cache is None:
        return None
    return CompileCache(cache)


def compile(module: torch.nn.Module, example_inputs: Any, *,
            dynamic: DynamicSpec = None, precision: str = "fp32",
            chip: str = "sm_90a", report: bool = False, format: str = "ptx",
            options: Optional[Mapping[str, Any]] = None,
            cache: Union[bool, str, "os.PathLike[str]"] = True,
            fallback: bool = True, training: bool = False,
            input_grads: bool = True) -> CompiledModule:
    """Compiles `module` for `example_inputs` into fuser kernels.

    Returns an nn.Module with the same forward signature whose forward runs
    the kernels on the module's current parameters and buffers (shared with
    `module`: load_state_dict, .to() and weight updates take effect).

    - `example_inputs`: forward's positional arguments (a tensor or a
      tuple). Only their shapes and dtypes matter: they are exported as
      `meta` tensors. Non-tensor arguments are constants of the kernels.
    - `dynamic`: None (static shapes), True or "batch" (dim 0 of every
      tensor argument, one shared size), or {argument name or index: dims}
      with dims an int, a list of ints, or {dim: name} (a shared name is a
      shared size; a torch.export.Dim may stand for a name).
    - `precision`, `chip`, `format` ("ptx" or "cubin"), `options` (other
      pipeline options, e.g. {"fp32-kernel": "ffma"}): as fuser.compile.
    - `report`: print fuser_report() (kernels, and every remark at its line
      of the model) to stderr; the remarks are kept either way
      (`compiled.fuser_remarks`).
    - `cache`: the on-disk compile cache (True: the default directory, a
      path, or False).
    - `fallback`: when fusion fails, the module is compiled again with
      every op alone (fuse=false), and a warning and a remark say so; when
      that fails too, or the export does, the module runs eagerly with a
      warning (`compiled.fuser_fallback` says why). With fallback=False
      the first error is raised: no unfused retry, no eager module.

    - `training`: also compile the backward (AOTAutograd's partitioned
      forward and backward graphs, both through fuser): the module's
      forward then records autograd, and `loss.backward()` runs fuser's
      backward kernels, filling the parameters' `.grad` (_training.py).
      `input_grads`: whether the backward computes the floating-point
      tensor inputs' gradients too.

    A call with shapes or dtypes no variant takes compiles a new static
    variant (torch-mlir and the compiler are here); fuser.torch.save writes
    them all.
    """
    if training:
        from ._training import compile_training
        return compile_training(
            module, example_inputs, dynamic=dynamic, precision=precision,
            chip=chip, report=report, format=format, options=options,
            cache=cache, fallback=fallback, input_grads=input_grads)
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"compile() expects an nn.Module, got "
                        f"{type(module).__name__}")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    find_tools()  # A missing compiler is an error, never a silent fallback.
    cache_obj = make_cache(cache)
    compiler = _Compiler(module, example_inputs, chip=chip,
                         precision=precision, format=format,
                         options=options or {}, cache=cache_obj,
                         fallback=fallback, report=report)
    package = Package(compiler.spec)
    inputs = [compiler.template[p] for p in compiler.positions]
    compiler.dynamic_shapes(dynamic, inputs)  # A bad spec raises here.
    return finish_compile(
        module, compiler, package,
        lambda: [compiler.variant(
            "dynamic" if dynamic not in (None, False) else "static",
            compiler.state_tensors(), inputs, dynamic)],
        compiler.on_demand, fallback=fallback, report=report)


def finish_compile(module, compiler, package: Package, make_variants,
                   on_demand, *, fallback: bool, report: bool,
                   doing: str = "runs", stacklevel: int = 3) -> CompiledModule:
    """The compiled module of `package` with the variants `make_variants()`
    builds; if that fails and `fallback` allows, one that runs `module`
    eagerly, with a warning saying why (`doing`: what it does eagerly;
    `stacklevel`: the user's frame, seen from here)."""
    try:
        variants = make_variants()
    except Exception as e:  # noqa: BLE001 - any export or compile failure.
        if not fallback:
            raise
        reason = f"{type(e).__name__}: {_short(e)}"
        warnings.warn(f"fuser.torch: {compiler.model_name} {doing} eagerly "
                      f"(PyTorch), not through fuser: {reason}",
                      RuntimeWarning, stacklevel=stacklevel)
        compiled = make_compiled(
            module, package, eager_reason=reason,
            notes=[Remark("", 0, "remark", f"runs eagerly: {reason}")])
    else:
        package.variants.extend(variants)
        compiled = make_compiled(module, package, compiler=on_demand)
    if report:
        print(compiled.fuser_report(), file=sys.stderr)
    return compiled


def add_variant(compiled: CompiledModule, example_inputs: Any, *,
                dynamic: DynamicSpec = None, name: Optional[str] = None
                ) -> Variant:
    """Compiles one more variant of a module compiled here (for other
    shapes, or dynamic sizes) into its package, so fuser.torch.save and the
    ModelNew converter carry it."""
    on_demand = compiled.__dict__.get("_fuser_compiler")
    compiler = getattr(on_demand, "__self__", None)
    if hasattr(compiler, "add_pair"):  # A training module (_training.py).
        return compiler.add_pair(compiled, example_inputs, dynamic, name)
    if not isinstance(compiler, _Compiler):
        raise FuserError("add_variant needs a module compiled in this "
                         "process by fuser.torch.compile")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    inputs = compiler.tensor_inputs(tuple(example_inputs))
    package = compiled.fuser_package
    base = name or ("dynamic" if dynamic not in (None, False) else "static")
    variant = compiler.variant(compiler.unique_name(package, base),
                               compiled._fuser_state_tensors(), inputs,
                               dynamic)
    package.variants.append(variant)
    compiled.__dict__["_fuser_by_key"].clear()
    return variant
