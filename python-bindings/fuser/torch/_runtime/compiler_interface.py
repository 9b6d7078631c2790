"""The compiler interface: what a compiled module is handed to compile the
variants it lacks.

The runtime never imports the compiler or torch-mlir, so a saved package
runs where only torch and fuser's runtime are installed. A module compiled
in this process is handed an object with these methods instead
(_conversion.forward.ForwardCompiler, _conversion.training.
TrainingCompiler); a loaded one is handed None.
"""

from __future__ import annotations

from typing import Any, Optional, Protocol, Sequence

import torch

from .._package import Variant


class VariantCompiler(Protocol):
    """Compiles more variants of one compiled module into its package.
    `compiled` is that CompiledModule: a compiler reads its
    fuser_package, _fuser_state_tensors() and fuser_report(), and adds the
    variants to fuser_package.variants; the module chooses among them."""

    def on_demand(self, compiled: torch.nn.Module,
                  tensors: Sequence[torch.Tensor],
                  dynamic: Any = None,
                  autocast: Optional[str] = None) -> Variant:
        """A call whose kernel arguments (`tensors`: the state, then the
        tensor inputs) no variant takes: compiles a static variant for them
        (as torch.compile recompiles), adds it to compiled.fuser_package
        and returns the one the call runs. Under CUDA autocast the variant
        computes what autocast does (`autocast`: "bf16" or "f16"; recorded
        in its info), and only such calls run it. A training module also calls it
        when a variant takes the shapes but no pair computes the gradients
        the tensors require (their requires_grad flags), with that
        variant's `dynamic` dims."""
        ...

    def add_variant(self, compiled: torch.nn.Module, example_inputs: tuple,
                    dynamic: Any, name: Optional[str]) -> Variant:
        """fuser.torch.add_variant: compiles a variant for forward
        arguments `example_inputs` (`dynamic` as compile() takes it), named
        `name` or after `dynamic`, adds it to compiled.fuser_package and
        returns the one a forward call runs."""
        ...
