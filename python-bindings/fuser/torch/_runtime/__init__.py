"""The runtime of fuser.torch: the nn.Modules that run a Package's kernels
(CompiledModule; TrainingModule, with autograd). Imports torch, fuser's
runtime and the package layer, never the compiler or torch-mlir: a module
compiled in this process is handed a compiler (compiler_interface.py)."""

from __future__ import annotations

from typing import Any

import torch

from .._package import Package
from .compiled_module import (CompiledModule, compiled_class,
                              compiled_forward, share_state)
from .compiler_interface import VariantCompiler
from .model_new import check_init_arguments
from .training_module import TrainingModule


def make_compiled(module: torch.nn.Module, package: Package, **kw: Any
                  ) -> CompiledModule:
    """The module running `package` on `module`'s state: a TrainingModule
    for a training package, else a CompiledModule, its forward with the
    compiled module's signature. `kw`: CompiledModule's (compiler, ...)."""
    base = (TrainingModule if package.spec.get("training") is not None
            else CompiledModule)
    cls = compiled_class(base, package.spec,
                         package.spec.get("model", "Module"))
    return cls(module, package, **kw)


__all__ = ["CompiledModule", "TrainingModule", "VariantCompiler",
           "check_init_arguments", "compiled_forward", "make_compiled",
           "share_state"]
