"""ForwardCompiler: variants of one module's forward, compiled. Export
(_export: the binding, torch.export on meta tensors, torch-mlir's import),
then fuser.compile through the cache (fuser_compile.py); the manifest's
arguments named as in the module. It is the compiler a forward-only
CompiledModule is handed (_runtime/compiler_interface.py)."""

from __future__ import annotations

import json
import sys
from typing import Any, List, Mapping, Optional, Sequence, Tuple

import torch

from ... import __version__
from ..._native import FuserError
from ...artifact import Artifact
from .._export.binding import DynamicSpec, ForwardBinding
from .._export.mlir import import_program
from .._export.program import (count_tensors, export_attempts, export_program,
                               output_tree)
from .._package import (FORWARD_PACKAGE_VERSION, PACKAGE_FORMAT, Package,
                        Variant, current_autocast, jsonable_or_none,
                        manifest_function)
from .cache import CompileCache
from .fuser_compile import compile_ir


def variant_base(dynamic: DynamicSpec, autocast: Optional[str] = None
                 ) -> str:
    """A variant's name before unique_name numbers it."""
    base = "dynamic" if dynamic not in (None, False) else "static"
    return f"{base}-autocast-{autocast}" if autocast else base


def unique_name(package: Package, base: str) -> str:
    taken = {v.name for v in package.variants}
    if base not in taken:
        return base
    i = 1
    while f"{base}{i}" in taken:
        i += 1
    return f"{base}{i}"


class ForwardCompiler:
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
        self.retry_unfused = (fallback if retry_unfused is None
                              else retry_unfused)
        self.report = report
        self.model_name = type(module).__name__
        self.binding = ForwardBinding(module, example_inputs)
        self.spec = self._spec()

    def _spec(self) -> dict:
        """The package's spec (_package.py); "outputs" is set by the first
        export."""
        return {
            "format": PACKAGE_FORMAT,
            "version": FORWARD_PACKAGE_VERSION,
            "fuser_version": __version__,
            "torch_version": torch.__version__,
            "model": self.model_name,
            "function": "main",
            "chip": self.chip,
            "precision": self.precision,
            "image": self.format,
            "options": {k: jsonable_or_none(v)
                        for k, v in self.options.items()},
            "signature": self.binding.entries,
            "inputs": self.binding.inputs,
            "args": self.binding.args,
            "outputs": {"type": "tensor"},
        }

    # 1. The binding (_export/binding.py).
    @property
    def state_names(self) -> List[str]:
        return self.binding.state_names

    def tensor_inputs(self, example_inputs: Sequence[Any]
                      ) -> List[torch.Tensor]:
        return self.binding.tensor_inputs(example_inputs)

    def state_tensors(self) -> List[torch.Tensor]:
        return self.binding.state_tensors()

    def dynamic_shapes(self, dynamic: DynamicSpec,
                       inputs: Sequence[torch.Tensor]):
        return self.binding.dynamic_shapes(dynamic, inputs)

    # 2. Export to linalg on tensors.
    def program(self, state: Sequence[torch.Tensor],
                inputs: Sequence[torch.Tensor], dynamic_shapes,
                device: str = "meta", autocast: Optional[str] = None):
        return export_program(self.binding, state, inputs, dynamic_shapes,
                              device, autocast)

    def export(self, state: Sequence[torch.Tensor],
               inputs: Sequence[torch.Tensor], dynamic_shapes,
               autocast: Optional[str] = None
               ) -> Tuple[str, dict, List[int]]:
        """The module as linalg on tensors, its output tree, and the kernel
        arguments it updates in place (import_program): exported on meta
        tensors, else on fake CPU ones (export_attempts); under CUDA
        autocast to `autocast` when given."""
        def attempt(device):
            program = self.program(state, inputs, dynamic_shapes, device,
                                   autocast)
            outputs = output_tree(program.call_spec.out_spec)
            text, mutated = import_program(program)
            return text, outputs, mutated
        return export_attempts(attempt)

    # 3. Compile, with the unfused retry.
    def compile_text(self, text: str) -> Tuple[Any, dict]:
        return compile_ir(text, chip=self.chip, precision=self.precision,
                          format=self.format, options=self.options,
                          cache=self.cache, retry_unfused=self.retry_unfused)

    def variant(self, name: str, state: Sequence[torch.Tensor],
                inputs: Sequence[torch.Tensor], dynamic: DynamicSpec,
                autocast: Optional[str] = None) -> Variant:
        """Exports and compiles one variant (for calls under CUDA autocast
        to `autocast`, when given); raises on failure."""
        dynamic_shapes, described = self.dynamic_shapes(dynamic, inputs)
        text, outputs, mutated = self.export(state, inputs, dynamic_shapes,
                                             autocast)
        self.spec["outputs"] = outputs  # The same for every variant.
        art, info = self.compile_text(text)
        art = self.named_arguments(art)
        info["dynamic"] = described
        if autocast:
            info["autocast"] = autocast
        if mutated:
            # The kernels return these arguments' new values first; the
            # module writes them back (BatchNorm's running statistics).
            info["mutations"] = mutated
        variant = Variant(name, art, self.spec["function"], info)
        results = len(manifest_function(
            art.manifest_dict, self.spec["function"]).get("results", []))
        if results != len(mutated) + count_tensors(outputs):
            raise FuserError(
                f"the compiled function returns {results} tensors, the "
                f"module's output has {count_tensors(outputs)} and it "
                f"updates {len(mutated)} buffers")
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
        fn = manifest_function(manifest, self.spec["function"])
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

    # The compiler interface (_runtime/compiler_interface.py).
    def on_demand(self, compiled, tensors: Sequence[torch.Tensor],
                  dynamic: DynamicSpec = None,
                  autocast: Optional[str] = None) -> Variant:
        n = len(self.state_names)
        package = compiled.fuser_package
        name = unique_name(package, variant_base(dynamic, autocast))
        variant = self.variant(name, tensors[:n], tensors[n:], dynamic,
                               autocast)
        package.variants.append(variant)
        if self.report:
            print(compiled.fuser_report(), file=sys.stderr)
        return variant

    def add_variant(self, compiled, example_inputs: tuple,
                    dynamic: DynamicSpec, name: Optional[str]) -> Variant:
        inputs = self.tensor_inputs(example_inputs)
        package = compiled.fuser_package
        autocast = current_autocast()  # Called under autocast: for it.
        variant = self.variant(
            unique_name(package, name or variant_base(dynamic, autocast)),
            compiled._fuser_state_tensors(), inputs, dynamic, autocast)
        package.variants.append(variant)
        return variant
