"""torch.export of a module's forward as a function of its state and tensor
inputs, on `meta` tensors (no memory, no GPU; GroupNorm keeps its broadcast
form). The weights are arguments, never frozen
into the IR. Torch only."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import torch

from ..._native import FuserError
from .binding import ForwardBinding


def _meta(t: torch.Tensor) -> torch.Tensor:
    return torch.empty(t.shape, dtype=t.dtype, device="meta")


class _Functional(torch.nn.Module):
    """forward(*state, *tensor_inputs) = module(*inputs) with the state
    swapped in by functional_call. The module is held outside the
    nn.Module registry, so export sees no parameters of its own (they would
    be frozen into the IR as constants)."""

    def __init__(self, module: torch.nn.Module, state_names: Sequence[str],
                 template: Sequence[Any], tensor_positions: Sequence[int],
                 keyword_names: Sequence[Optional[str]]) -> None:
        super().__init__()
        object.__setattr__(self, "_target", module)  # Not a submodule.
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


def export_program(binding: ForwardBinding, state: Sequence[torch.Tensor],
                   inputs: Sequence[torch.Tensor], dynamic_shapes):
    """torch.export of the functional wrapper on meta tensors (before
    decompositions): (state..., tensor inputs...) -> flat outputs."""
    wrapper = _Functional(binding.module, binding.state_names,
                          binding.template, binding.positions,
                          binding.keywords)
    flat = tuple(_meta(t) for t in state) + tuple(_meta(t) for t in inputs)
    return torch.export.export(wrapper, flat, dynamic_shapes=dynamic_shapes)


def output_tree(spec) -> dict:
    """The output pytree's structure (an ExportedProgram's
    call_spec.out_spec) as JSON, the spec's "outputs": tensors, tuples,
    lists, dicts with JSON keys."""
    if spec.is_leaf():
        return {"type": "tensor"}
    children = (list(spec.children()) if hasattr(spec, "children")
                else list(spec.children_specs))
    items = [output_tree(c) for c in children]
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


def count_tensors(tree: dict) -> int:
    """The tensors in an output tree (output_tree)."""
    if tree["type"] == "tensor":
        return 1
    return sum(count_tensors(c) for c in tree.get("items", []))
