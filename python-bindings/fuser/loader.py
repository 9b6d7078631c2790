"""fuser.load: an Artifact's entry functions as Python callables.

The native objects (the extension's Module and Function, which own the CUDA
modules) are released at interpreter exit by an atexit hook, not whenever
the garbage collector reaches their Python owners, because shutdown does
not always get there. Once torch.compile has compiled a function that calls
an nn.Module (seen with torch 2.11), the globals of the function's module
outlive finalization and are never cleared (an object's __del__ there never
runs): Dynamo keeps them through its cache on the code object, a reference
the collector cannot see. A
script's `mod = fuser.load(...)` in those globals was then never freed: its
CUDA modules were not unloaded, and nanobind reported the Module and its
Functions at exit ("leaked 3 instances ... 2 types ... 11 functions",
issue 12). The Python wrappers may still outlive finalization there, but
they no longer hold anything native."""

from __future__ import annotations

import atexit
import weakref
from typing import Any, Optional

from . import frameworks
from ._native import FuserError, Module
from .artifact import Artifact


class EntryFunction:
    """Calls one entry function: `fn(*tensors, out=None, stream=None)`.

    Outputs are allocated with the inputs' framework (torch.empty /
    cupy.empty on the same device) unless `out` gives them; the launch goes
    on the framework's current stream unless `stream` is given. Returns the
    single result, a tuple of results, or None.
    """

    def __init__(self, function, artifact: Artifact) -> None:
        self._fn = function
        self.artifact = artifact
        self.name: str = function.name
        self.arg_specs: list = function.arg_specs
        self.num_results: int = function.num_results
        choice = (function, (), artifact, function.name)
        self._torch_call = TorchCall(lambda tensors: choice)
        _LIVE.add(self)

    def _release(self) -> None:
        self._fn = _Released(f"function '{self.name}'")
        self._torch_call._release()

    def __call__(self, *tensors: Any, out: Any = None,
                 stream: Any = None) -> Any:
        # PyTorch CUDA tensors, results allocated, the current stream: one
        # native call (TorchCall). Anything else, or an error to report,
        # takes the general path below.
        if out is None and stream is None:
            results = self._torch_call(tensors)
            if results is not NotImplemented:
                return results
        # 1. Describe the inputs (validated by result_specs/launch).
        inputs = [
            frameworks.describe(t, f"{self.name}: argument {i}")
            for i, t in enumerate(tensors)
        ]
        device_id = _device_of(inputs)

        # 2. Outputs: the caller's, or fresh ones from the inputs' framework.
        if out is None:
            specs = self._fn.result_specs(inputs)
            outputs = (
                frameworks.allocate(tensors[0], device_id, specs, self.name)
                if specs else []
            )
        else:
            outputs = list(out) if isinstance(out, (list, tuple)) else [out]
        described_outputs = [
            frameworks.describe(t, f"{self.name}: output {i}")
            for i, t in enumerate(outputs)
        ]

        # 3. Launch on the requested or the framework's current stream.
        if stream is not None:
            handle = frameworks.stream_handle(stream)
        else:
            handle = _current_stream(list(tensors) + outputs, device_id)
        self._fn.launch(inputs, described_outputs, handle)

        if not outputs:
            return None
        if out is not None and not isinstance(out, (list, tuple)):
            return out
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def result_specs(self, *tensors: Any) -> list:
        """[(shape, dtype), ...] of the results for these inputs."""
        return self._fn.result_specs([
            frameworks.describe(t, f"{self.name}: argument {i}")
            for i, t in enumerate(tensors)
        ])

    def __repr__(self) -> str:
        return f"<fuser function '{self.name}'>"


class TorchCall:
    """Launches on PyTorch tensors in one native call per call (the
    extensions' TorchLauncher, frameworks.torch_launcher): results
    allocated by PyTorch, the launch on the device's current stream, each
    signature (device, dtypes, shapes) prepared once. `select(tensors)`
    returns (native Function, indices of the arguments its first results
    update in place, its Artifact, the function's name) for a new
    signature. Calling returns NotImplemented where the general path must
    take the call: torch not imported, a tensor that is not a PyTorch CUDA
    tensor of a fuser dtype (or not contiguous or 16-byte aligned, unless
    `make_dense` asks for dense, aligned copies), or after interpreter exit
    released it."""

    def __init__(self, select, make_dense: bool = False) -> None:
        self._select = select
        self._make_dense = make_dense
        self._launcher: Any = None  # Made at the first call with torch.
        _LIVE.add(self)

    def __call__(self, tensors: Any) -> Any:
        launcher = self._launcher
        if launcher is None:
            launcher = self._launcher = frameworks.torch_launcher(
                self._select, self._make_dense)
            if launcher is None:
                return NotImplemented
        if launcher is False:
            return NotImplemented
        return launcher(tensors)

    @property
    def native(self) -> Any:
        """The native launcher once made (callers on a hot path may call it
        directly, and must drop it when this is released), else None."""
        return self._launcher or None

    def clear(self) -> None:
        """Forgets the prepared signatures (the choice of function changed)."""
        if self._launcher:
            self._launcher.clear()

    def _release(self) -> None:
        self._launcher = False
        self._select = None


def _device_of(described: list) -> int:
    for t in described:
        device_id = getattr(t, "device_id", None)
        if device_id is not None:
            return device_id
    return 0


def _current_stream(tensors: list, device_id: int) -> int:
    for t in tensors:
        s = frameworks.stream_of(t, device_id)
        if s is not None:
            return s
    return 0  # The legacy default stream.


class LoadedModule:
    """The entry functions of a loaded artifact, as attributes and items:
    `mod.forward(x)` or `mod["forward"](x)`."""

    def __init__(self, artifact: Artifact) -> None:
        image = artifact.cubin if artifact.cubin is not None else artifact.ptx
        self._module = Module(image, artifact.manifest)
        self._functions = {
            name: EntryFunction(self._module.function(name), artifact)
            for name in self._module.function_names
        }
        self.artifact = artifact
        _LIVE.add(self)

    def _release(self) -> None:
        self._module = _Released("module")
        for fn in self._functions.values():
            fn._release()

    @property
    def function_names(self) -> list:
        return list(self._functions)

    @property
    def chip(self) -> str:
        return self._module.chip

    def _missing(self, name: str) -> str:
        available = ", ".join(f"'{n}'" for n in self._functions) or "none"
        return (f"no function named '{name}' in the module (available: "
                f"{available})")

    def __getitem__(self, name: str) -> EntryFunction:
        try:
            return self._functions[name]
        except KeyError:
            raise KeyError(self._missing(name)) from None

    def __getattr__(self, name: str) -> EntryFunction:
        # Only called when normal lookup fails.
        functions = self.__dict__.get("_functions", {})
        if name in functions:
            return functions[name]
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(self._missing(name))

    def __contains__(self, name: str) -> bool:
        return name in self._functions

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._functions))

    def __repr__(self) -> str:
        return f"<fuser module [{', '.join(self._functions)}]>"


class _Released:
    """Stands in for a native object released at interpreter exit: any use
    (an atexit handler that runs after fuser's, say) is a FuserError."""

    def __init__(self, what: str) -> None:
        self._what = what

    def __getattr__(self, name: str):
        raise FuserError(
            f"fuser {self._what} used after its native objects were released "
            "at interpreter exit")


# Every wrapper of native objects alive (EntryFunction, LoadedModule,
# TorchCall, and what release_at_exit adds), weakly: what _release_all
# releases at exit.
_LIVE: "weakref.WeakSet[Any]" = weakref.WeakSet()


def release_at_exit(obj: Any) -> None:
    """Calls obj._release() at interpreter exit, with fuser's native
    wrappers (see the module's comment), if obj is still alive then."""
    _LIVE.add(obj)


def _release_all() -> None:
    """Drops the references to native objects from every live wrapper, so
    that they are freed now, before the interpreter finalizes, whether or
    not the wrappers themselves will be."""
    for obj in list(_LIVE):
        obj._release()
    _LIVE.clear()


atexit.register(_release_all)


def load(artifact: Artifact) -> LoadedModule:
    """Loads a compiled Artifact. The manifest is checked now; the CUDA
    module is loaded on the first call on each device."""
    if not isinstance(artifact, Artifact):
        raise TypeError(
            f"load() expects a fuser.Artifact, got {type(artifact).__name__} "
            "(use fuser.Artifact.from_files(ptx_path, manifest_path))"
        )
    return LoadedModule(artifact)
