"""CompiledModule: the nn.Module that runs a Package's kernels on a module's
parameters and buffers. Needs torch and fuser's runtime only (a saved
package, or a generated ModelNew file, runs where nothing compiles); a
module compiled in this process is handed a compiler for the variants it
lacks (compiler_interface.py).
"""

from __future__ import annotations

import inspect
import os
import sys
import warnings
import weakref
from typing import Any, Dict, List, Optional, Sequence

import torch

from ..._native import FuserError
from ...loader import TorchCall, release_at_exit
from .._package import (DTYPE_NAMES, Package, Variant, current_autocast,
                        describe_specs, jsonable_or_none)
from .._remarks import Remark
from .autograd import dense_aligned
from .compiler_interface import VariantCompiler


class _UnsavedDefault:
    """Stands for a default value the package could not save (not JSON)."""

    def __repr__(self) -> str:
        return "<unsaved default>"


def _signature_from_spec(entries: Sequence[dict]) -> inspect.Signature:
    # self positional-only: forward(*xs) saves its inputs as positional-only.
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]
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


def compiled_forward(forward):
    """Marks a forward that only hands its arguments to _fuser_call
    (`return self._fuser_call(args, kwargs)`), as ModelNew files' and
    compiled_class's do: a call of the module may then skip it. A subclass
    whose forward does more leaves it unmarked and runs it."""
    forward._fuser_passes_through = True
    return forward


def share_state(wrapper: torch.nn.Module, module: torch.nn.Module) -> None:
    """`wrapper` holds `module`'s parameters, buffers and submodules (the
    same dicts: state_dict() has the same keys, load_state_dict() and .to()
    reach both) and `module` itself as _fuser_module. Set in __dict__, past
    nn.Module.__setattr__, which would register `module` as a submodule
    (state_dict keys `_fuser_module.*`)."""
    d = wrapper.__dict__
    for attr in ("_parameters", "_buffers", "_modules",
                 "_non_persistent_buffers_set"):
        d[attr] = getattr(module, attr)
    d["_fuser_module"] = module


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
                 compiler: Optional[VariantCompiler] = None,
                 eager_reason: Optional[str] = None,
                 notes: Sequence[Remark] = ()) -> None:
        super().__init__()
        # 1. The module's state, shared (see the class comment).
        share_state(self, module)
        d = self.__dict__
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
        d["_fuser_launch"] = TorchCall(_launch_choice(self), make_dense=True)
        # Its native launcher, called directly once made; dropped at exit
        # with the launcher (_release).
        d["_fuser_native"] = None
        release_at_exit(self)
        d["_fuser_flat"] = _flat_output(spec["outputs"])
        # Forward-only, every argument a tensor input in order: the call
        # takes the direct path (_fuser_call).
        d["_fuser_direct"] = (
            eager_reason is None and
            type(self)._fuser_run is CompiledModule._fuser_run and
            not d["_fuser_constants"] and
            inputs == list(range(len(spec["inputs"]))))
        d["_fuser_grad_warned"] = False
        d["_fuser_autocast_warned"] = False
        # __call__ may go past forward to _fuser_call: forward does nothing
        # else (see compiled_forward).
        d["_fuser_forward_passes"] = getattr(type(self).forward,
                                             "_fuser_passes_through", False)
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

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # nn.Module.__call__ walks three frames and the hooks before forward
        # reaches _fuser_call: about 1.4 us, a tenth of a one-kernel call.
        # Without hooks, tracing or module.compile() nothing of it applies.
        d = self.__dict__
        if (not d["_fuser_forward_passes"] or d["_forward_hooks"] or
                d["_forward_pre_hooks"] or d["_backward_hooks"] or
                d["_backward_pre_hooks"] or _any_global_hooks() or
                d.get("_compiled_call_impl") is not None or
                torch._C._get_tracing_state()):
            return torch.nn.Module.__call__(self, *args, **kwargs)
        return self._fuser_call(args, kwargs)

    @compiled_forward
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._fuser_call(args, kwargs)

    def _release(self) -> None:
        """At interpreter exit (loader._release_all): the native launcher
        goes with the module's other native objects."""
        self.__dict__["_fuser_native"] = None

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
        # The common call, in one frame: positional tensors, no autocast,
        # nothing to warn about; the native path checks the tensors, and
        # the general path below takes what it does not.
        if (d["_fuser_direct"] and not kwargs and
                len(args) == d["_fuser_arity"] and
                (d["_fuser_grad_warned"] or not torch.is_grad_enabled()) and
                not _any_autocast()):
            tensors = self._fuser_state_tensors() if d["_fuser_state"] \
                else []
            tensors.extend(args)
            native = d["_fuser_native"]
            if native is None:
                results = d["_fuser_launch"](tensors)
                d["_fuser_native"] = d["_fuser_launch"].native
            else:
                results = native(tensors)
            if results is not NotImplemented:
                return results if d["_fuser_flat"] else \
                    self._fuser_unflatten(results)
        if d["fuser_fallback"] is not None:
            return d["_fuser_module"](*args, **kwargs)
        if torch.is_autocast_enabled("cuda"):
            return self._fuser_autocast(args, kwargs)
        return self._fuser_run(self._fuser_tensors(args, kwargs))

    def _fuser_autocast(self, args: tuple, kwargs: dict) -> Any:
        """A call under CUDA autocast runs the variants compiled for it:
        autocast's casts are ops of their kernels (bf16 or f16 products
        summed in f32, f32 norms), compiled on demand where the compiler
        is. A loaded package without such a variant runs the module
        eagerly, with autocast's kernels, said once by a warning and a
        remark."""
        d = self.__dict__
        autocast = current_autocast()
        tensors = self._fuser_tensors(args, kwargs)
        if d["_fuser_compiler"] is None and not self._fuser_matching(
                tuple((t.dtype, t.shape) for t in tensors), autocast):
            if not d["_fuser_autocast_warned"]:
                d["_fuser_autocast_warned"] = True
                why = ("runs eagerly (PyTorch) under torch.autocast: the "
                       f"package has no variant compiled for {autocast} "
                       "autocast and these shapes (compile under "
                       "torch.autocast, or call fuser.torch.add_variant "
                       "there)")
                d["_fuser_notes"].append(Remark("", 0, "remark", why))
                warnings.warn(f"fuser.torch: {self.fuser_package.spec.get('model', 'the module')} "
                              f"{why}", RuntimeWarning,
                              stacklevel=_user_stacklevel())
            return d["_fuser_module"](*args, **kwargs)
        return self._fuser_run(tensors, autocast)

    def _fuser_tensors(self, args: tuple, kwargs: dict) -> List[torch.Tensor]:
        """The kernels' tensor arguments for a call: the state, then the
        tensor inputs (the constants checked)."""
        d = self.__dict__
        values = self._fuser_bind(args, kwargs)
        for i, name, value in d["_fuser_constants"]:
            given = values[i]
            if given != value and jsonable_or_none(given) != value:
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

    def _fuser_run(self, tensors: List[torch.Tensor],
                   autocast: Optional[str] = None) -> Any:
        d = self.__dict__
        if not d["_fuser_grad_warned"] and torch.is_grad_enabled() and any(
                t.requires_grad for t in tensors):
            d["_fuser_grad_warned"] = True
            warnings.warn(
                "fuser.torch: the kernels record no autograd graph; the "
                "outputs carry no gradient (compile with training=True for "
                "fuser's backward; call under torch.no_grad() to silence "
                "this)", RuntimeWarning,
                stacklevel=_user_stacklevel())
        # The native path: variant, checks, results and launch in one call
        # (its choice runs the variants compiled without autocast).
        if autocast is None:
            results = d["_fuser_launch"](tensors)
            if results is not NotImplemented:
                return results if d["_fuser_flat"] else \
                    self._fuser_unflatten(results)
        variant = self._fuser_variant(tensors, autocast)
        results = variant.entry()(*dense_aligned(tensors))
        return self._fuser_unflatten(
            write_back(variant, tensors, results))

    def _fuser_variant(self, tensors: Sequence[torch.Tensor],
                       autocast: Optional[str] = None) -> Variant:
        """The variant that takes these kernel arguments (cached by shapes
        and dtypes; compiled on demand where the compiler is), among those
        compiled for CUDA autocast to `autocast` (None: without)."""
        d = self.__dict__
        key = tuple((t.dtype, t.shape) for t in tensors)
        cache_key = (autocast, key) if autocast else key
        variant = d["_fuser_by_key"].get(cache_key)
        if variant is None:
            variant = self._fuser_select(key, tensors, autocast)
            d["_fuser_by_key"][cache_key] = variant
        return variant

    def _fuser_callable_variants(self) -> List[Variant]:
        """The variants a forward call may run (a training package's
        backward variants are not)."""
        return self.fuser_package.variants

    def _fuser_matching(self, key, autocast: Optional[str] = None
                        ) -> List[Variant]:
        """The callable variants that take arguments of these (dtype,
        shape) pairs, compiled for CUDA autocast to `autocast` (None:
        without)."""
        described = [(DTYPE_NAMES.get(dt, str(dt)), tuple(shape))
                     for dt, shape in key]
        return [v for v in self._fuser_callable_variants()
                if v.info.get("autocast") == autocast and
                v.matches(described)]

    def _fuser_select(self, key, tensors,
                      autocast: Optional[str] = None) -> Variant:
        candidates = self._fuser_matching(key, autocast)
        if candidates:
            return max(candidates, key=Variant.static_dims)
        compiler = self.__dict__["_fuser_compiler"]
        if compiler is not None:
            # A first call under autocast: the dynamic dims of the variant
            # that takes these shapes without it (a new shape: static, as
            # torch.compile recompiles).
            like = self._fuser_matching(key) if autocast else []
            dynamic = (dynamic_dims(max(like, key=Variant.static_dims))
                       if like else None)
            return compiler.on_demand(self, tensors, dynamic,
                                      autocast=autocast)
        names = [a["name"] for a in self.fuser_package.spec["args"]]
        described = [(DTYPE_NAMES.get(dt, str(dt)), tuple(shape))
                     for dt, shape in key]
        got = describe_specs(described, names)
        have = "\n".join(f"  {v.name}: {describe_specs(v.arg_specs, names)}"
                         for v in self._fuser_callable_variants())
        raise FuserError(
            f"no compiled variant takes these arguments ({got}); the "
            f"package has:\n{have}\nCompile for these shapes (fuser.torch."
            "compile with dynamic=... for dynamic sizes), where torch-mlir "
            "and fuser's compiler are installed")

    def _fuser_add_variant(self, example_inputs: tuple, dynamic: Any,
                           name: Optional[str]) -> Variant:
        """fuser.torch.add_variant: through the compiler this module was
        handed (none when it was loaded, or runs eagerly)."""
        if self._fuser_compiler is None:
            raise FuserError("add_variant needs a module compiled in this "
                             "process by fuser.torch.compile")
        variant = self._fuser_compiler.add_variant(self, example_inputs,
                                                   dynamic, name)
        # Calls seen before may suit the new variant better.
        self._fuser_by_key.clear()
        self._fuser_launch.clear()
        return variant

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


# Any autocast on: the general path then checks CUDA's (cheaper to ask
# than torch.is_autocast_enabled("cuda"), which parses its argument).
_any_autocast = getattr(torch._C, "_is_any_autocast_enabled",
                        lambda: torch.is_autocast_enabled("cuda"))


# Frames a warning looks past to the user's call: fuser's own and
# nn.Module's call machinery (hooks make it one path, their absence another).
_INTERNAL_FILES = (os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))) + os.sep,
    os.path.abspath(torch.nn.modules.module.__file__))


def _user_stacklevel() -> int:
    """warnings.warn's stacklevel, for the function calling this, that
    points at the first frame outside fuser and nn.Module's __call__: the
    user's `compiled(x)` (or `compiled.forward(x)`)."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and os.path.abspath(
            frame.f_code.co_filename).startswith(_INTERNAL_FILES):
        frame, level = frame.f_back, level + 1
    return level


_GLOBAL_HOOKS = tuple(
    getattr(torch.nn.modules.module, name, {}) for name in (
        "_global_forward_hooks", "_global_forward_pre_hooks",
        "_global_backward_hooks", "_global_backward_pre_hooks"))


def _any_global_hooks() -> bool:
    """Hooks registered for every module (register_module_forward_hook and
    the like; nn.Module mutates these dicts in place)."""
    a, b, c, e = _GLOBAL_HOOKS
    return bool(a or b or c or e)


def _launch_choice(module: CompiledModule):
    """The native call path's choice for a new signature: the variant
    module._fuser_variant picks (compiled on demand where the compiler is)
    and the arguments its results update. Holds the module weakly: the
    module holds the native launcher, which holds this."""
    ref = weakref.ref(module)

    def choose(tensors):
        variant = ref()._fuser_variant(tensors)
        entry = variant.entry()
        return (entry._fn, tuple(variant.info.get("mutations") or ()),
                entry.artifact, entry.name)
    return choose


def dynamic_dims(variant: Variant) -> Optional[dict]:
    """The variant's dynamic dims as compile() takes them ({input name:
    {dim: name}}), or None for a static variant."""
    return {name: {int(dim): label for dim, label in dims.items()}
            for name, dims in variant.info.get("dynamic", {}).items()} or None


def _flat_output(tree: dict) -> bool:
    """The module returns what the native path returns: one tensor, or a
    plain tuple of two or more tensors."""
    if tree["type"] == "tensor":
        return True
    return (tree["type"] == "tuple" and "return_type" not in tree and
            len(tree["items"]) >= 2 and
            all(c["type"] == "tensor" for c in tree["items"]))


def write_back(variant: Variant, tensors: Sequence[torch.Tensor],
               results: Any) -> Any:
    """The variant's results without the new values of the arguments it
    updates in place (its info's "mutations": the kernels return them
    first), which are copied into those arguments, as the module's forward
    would have updated them (BatchNorm's running statistics)."""
    mutated = variant.info.get("mutations")
    if not mutated:
        return results
    results = list(results) if isinstance(results, (tuple, list)) \
        else [results]
    with torch.no_grad():
        for index, value in zip(mutated, results):
            tensors[index].copy_(value)
    rest = results[len(mutated):]
    return rest[0] if len(rest) == 1 else tuple(rest)


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
        if "return_type" in tree:  # torch.return_types.max, say.
            return getattr(torch.return_types, tree["return_type"])(items)
        return tuple(items)
    if kind == "list":
        return items
    if kind == "dict":
        return dict(zip(tree["keys"], items))
    raise FuserError(f"unknown output structure '{kind}' in the package")


def compiled_class(base: type, spec: dict, name: str) -> type:
    """A subclass of `base` whose forward has the module's signature (so
    inspect.signature(compiled.forward) reads as the original's)."""

    @compiled_forward
    def forward(self, *args, **kwargs):
        return self._fuser_call(args, kwargs)

    forward.__signature__ = _signature_from_spec(spec["signature"])
    forward.__doc__ = (f"{name}.forward through fuser's kernels (same "
                       "arguments as the original).")
    return type(f"Fuser{name}", (base,), {"forward": forward,
                                           "__module__": base.__module__})
