"""TrainingModule: a CompiledModule of a training package, whose forward
records autograd (autograd.py). Needs torch and fuser's runtime only."""

from __future__ import annotations

from typing import Any, List, Sequence

import torch

from ..._native import FuserError
from .._package import Variant, describe_specs, manifest_function
from .autograd import _FuserStep, as_list, contiguous
from .compiled_module import CompiledModule


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

    def _fuser_run(self, tensors: List[torch.Tensor]) -> Any:
        forward = self._fuser_variant(tensors)
        if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
            outs = _FuserStep.apply(forward, self._fuser_backward(forward),
                                    *tensors)
            return self._fuser_unflatten(outs)
        results = as_list(forward.entry()(*contiguous(tensors)))
        return self._fuser_unflatten(
            tuple(results[:forward.info["training"]["outputs"]]))

    def fuser_report(self) -> str:
        text = super().fuser_report()
        return text.replace("fuser: ", "fuser (training): ", 1)

    def _fuser_variant_shapes(self, v: Variant, n_state: int,
                              inputs: Sequence[str]) -> str:
        if "training" in v.info:
            return super()._fuser_variant_shapes(v, n_state, inputs)
        fn = manifest_function(v.artifact.manifest_dict, v.function_name)
        return "backward of " + v.info.get("backward_of", "?") + "; " + \
            describe_specs(v.arg_specs, [a["name"] for a in fn["args"]])
