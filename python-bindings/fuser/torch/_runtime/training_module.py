"""TrainingModule: a CompiledModule of a training package, whose forward
records autograd (autograd.py). Needs torch and fuser's runtime only.

Gradients are chosen per call: each forward variant's plan says which
arguments its backward computes gradients of ("grads"), and a call runs the
pair whose backward computes exactly the gradients of the arguments that
require grad in it, so a data batch that does not require grad, or a frozen
parameter, costs no backward kernels. Where no pair is exact, the module
compiles one (once per case) if the compiler is here (the module was
compiled in this process), with the shapes and dynamic dims of the variant
that takes the arguments; a loaded package runs the pair with the fewest
extra gradients and drops those.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import torch

from ..._native import FuserError
from .._package import Variant, describe_specs, manifest_function
from .autograd import _FuserStep, as_list, dense_aligned
from .compiled_module import CompiledModule, dynamic_dims, write_back


class TrainingModule(CompiledModule):
    """A CompiledModule whose forward records autograd: outputs carry a
    gradient function that runs fuser's backward kernels, so
    `loss.backward()` fills the parameters' (and inputs') `.grad`. Under
    torch.no_grad() (or when nothing needs a gradient) the forward kernel
    runs alone and its saved results are dropped."""

    def _fuser_callable_variants(self) -> List[Variant]:
        return [v for v in self.fuser_package.variants
                if "training" in v.info]

    def _fuser_backward(self, forward: Variant) -> Variant:
        name = forward.info["training"]["backward"]
        for v in self.fuser_package.variants:
            if v.name == name:
                return v
        raise FuserError(f"the package has no backward variant '{name}'")

    def _fuser_run(self, tensors: List[torch.Tensor],
                   autocast: Optional[str] = None) -> Any:
        if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
            forward = self._fuser_training_variant(tensors, autocast)
            outs = _FuserStep.apply(forward, self._fuser_backward(forward),
                                    *tensors)
            return self._fuser_unflatten(write_back(forward, tensors, outs))
        forward = self._fuser_variant(tensors, autocast)
        results = as_list(forward.entry()(*dense_aligned(tensors)))
        return self._fuser_unflatten(write_back(
            forward, tensors,
            tuple(results[:forward.info["training"]["outputs"]])))

    def _fuser_training_variant(self, tensors: Sequence[torch.Tensor],
                                autocast: Optional[str] = None) -> Variant:
        """The forward variant whose backward computes the gradients these
        tensors require (cached per shapes, dtypes, requires_grad flags
        and autocast)."""
        d = self.__dict__
        needed = tuple(t.requires_grad for t in tensors)
        key = (tuple((t.dtype, t.shape) for t in tensors), needed, autocast)
        variant = d["_fuser_by_key"].get(key)
        if variant is None:
            variant = self._fuser_select_for_grads(tensors, needed, autocast)
            d["_fuser_by_key"][key] = variant
        return variant

    def _fuser_select_for_grads(self, tensors: Sequence[torch.Tensor],
                                needed: Sequence[bool],
                                autocast: Optional[str] = None) -> Variant:
        # A variant that takes the shapes (compiled on demand, or an error,
        # if none does); its dynamic dims are those of a pair compiled here.
        takes = self._fuser_variant(tensors, autocast)
        candidates = self._fuser_matching(
            tuple((t.dtype, t.shape) for t in tensors), autocast)
        exact = [v for v in candidates if extra_grads(v, needed) == 0 and
                 covers(v, needed)]
        if exact:
            return max(exact, key=Variant.static_dims)
        compiler = self.__dict__["_fuser_compiler"]
        covering = [v for v in candidates if covers(v, needed)]
        if covering and compiler is None:
            # A loaded package: the extra gradients are computed and
            # dropped (autograd ignores them).
            return min(covering, key=lambda v: (extra_grads(v, needed),
                                                -v.static_dims()))
        if compiler is None:
            names = [a["name"] for a in self.fuser_package.spec["args"]]
            want = [n for n, r in zip(names, needed) if r]
            raise FuserError(
                f"no compiled variant computes the gradients this call needs "
                f"({', '.join(want)}); the package has:\n" +
                "\n".join(f"  {v.name}: gradients of "
                          f"{', '.join(grad_names(v, names)) or 'nothing'}"
                          for v in candidates) +
                "\nCompile with these inputs requiring grad (fuser.torch."
                "add_variant), where torch-mlir and fuser's compiler are "
                "installed")
        return compiler.on_demand(self, tensors, dynamic_dims(takes),
                                  autocast=autocast)

    def fuser_report(self) -> str:
        text = super().fuser_report()
        return text.replace("fuser: ", "fuser (training): ", 1)

    def _fuser_variant_shapes(self, v: Variant, n_state: int,
                              inputs: Sequence[str]) -> str:
        if "training" in v.info:
            names = [a["name"] for a in self.fuser_package.spec["args"]]
            return super()._fuser_variant_shapes(v, n_state, inputs) + \
                "; gradients of " + (", ".join(grad_names(v, names)) or
                                     "nothing")
        fn = manifest_function(v.artifact.manifest_dict, v.function_name)
        return "backward of " + v.info.get("backward_of", "?") + "; " + \
            describe_specs(v.arg_specs, [a["name"] for a in fn["args"]])


def covers(forward: Variant, needed: Sequence[bool]) -> bool:
    """The variant's backward computes every gradient `needed` marks."""
    grads = forward.info["training"]["grads"]
    return all(g is not None for g, n in zip(grads, needed) if n)


def extra_grads(forward: Variant, needed: Sequence[bool]) -> int:
    """Gradients the variant's backward computes that nobody asked for."""
    grads = forward.info["training"]["grads"]
    return sum(g is not None and not n for g, n in zip(grads, needed))


def grad_names(forward: Variant, names: Sequence[str]) -> List[str]:
    return [n for n, g in zip(names, forward.info["training"]["grads"])
            if g is not None]
