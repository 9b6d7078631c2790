"""The autograd glue of a training package: a forward variant's kernel,
then its backward variant's, as one torch.autograd.Function, wired by the
plan the forward variant's info holds ("training": see
_conversion/training.py). Needs torch and fuser's runtime only.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import torch
from torch.autograd.function import once_differentiable

from .._package import Variant


# The address alignment the kernels' widest accesses (16-byte vectors, TMA)
# need; the native launchers' kDenseAlignment.
DENSE_ALIGNMENT = 16


def dense_aligned(ts):
    """Dense, 16-byte aligned tensors, as the kernels take them: a copy of a
    strided view, or of a dense one at an address their vector accesses
    cannot take (x[1:] of a float tensor)."""
    return [t if t.is_contiguous() and t.data_ptr() % DENSE_ALIGNMENT == 0
            else t.clone(memory_format=torch.contiguous_format) for t in ts]


def as_list(results) -> list:
    """An entry function's results (one, a tuple, or None) as a list."""
    if results is None:
        return []
    if isinstance(results, (tuple, list)):
        return list(results)
    return [results]


class _FuserStep(torch.autograd.Function):
    """Forward: the forward kernel, saving what the plan's backward reads.
    Backward: the backward kernel, its results as the arguments' gradients."""

    @staticmethod
    def forward(ctx, forward: Variant, backward: Variant, *tensors):
        outs, keep = run_forward(forward, tensors)
        ctx.save_for_backward(*keep)
        differentiable = forward.info["training"].get("differentiable")
        if differentiable is not None:
            ctx.mark_non_differentiable(*[o for i, o in enumerate(outs)
                                          if i not in differentiable])
        ctx.fuser_variants = (forward, backward)
        ctx.fuser_n_args = len(tensors)
        ctx.fuser_arg_shapes = [t.shape for t in tensors]
        return tuple(outs) if len(outs) != 1 else outs[0]

    @staticmethod
    @once_differentiable
    def backward(ctx, *grad_outputs):
        forward, backward = ctx.fuser_variants
        grads = run_backward(forward, backward, ctx.saved_tensors,
                             grad_outputs, ctx.fuser_arg_shapes)
        return (None, None, *grads)


def _kernel_call(variant: Variant, args, out=None) -> list:
    """The variant's kernels on dense `args`; `out`: the caller's result
    tensors (every result, in the kernel's order), or None to allocate."""
    entry = variant.entry()
    if out is None:
        return as_list(entry(*dense_aligned(args)))
    return as_list(entry(*dense_aligned(args), out=tuple(out)))


def run_forward(forward: Variant, tensors: Sequence[torch.Tensor],
                out: Optional[Sequence[torch.Tensor]] = None
                ) -> Tuple[List[torch.Tensor], List[torch.Tensor]]:
    """The forward kernel on `tensors`: (the module's outputs, what the
    backward kernel reads besides the gradients, in the plan's order).
    `out`: every kernel result, preallocated (see _kernel_call)."""
    plan = forward.info["training"]
    results = _kernel_call(forward, tensors, out)
    keep = []
    for a in plan["backward_args"]:
        if a["from"] == "result":
            keep.append(results[a["index"]])
        elif a["from"] == "arg":
            keep.append(tensors[a["index"]])
    return results[:plan["outputs"]], keep


def run_backward(forward: Variant, backward: Variant,
                 saved: Sequence[torch.Tensor],
                 grad_outputs: Sequence[torch.Tensor],
                 arg_shapes: Sequence[torch.Size],
                 out: Optional[Sequence[torch.Tensor]] = None) -> List[Any]:
    """The backward kernel: the gradient of each forward argument (None
    where the plan has none), from what run_forward kept (`saved`) and the
    outputs' gradients. `out`: every backward kernel result, preallocated
    (see _kernel_call)."""
    plan = forward.info["training"]
    saved = iter(saved)
    args = []
    for a in plan["backward_args"]:
        if a["from"] == "grad":
            args.append(grad_outputs[a["index"]])
        else:
            args.append(next(saved))
    results = _kernel_call(backward, args, out)
    grads = []
    for g in plan["grads"]:
        if g is None:
            grads.append(None)
        elif g["from"] == "result":
            grads.append(results[g["index"]])
        else:
            grads.append(args[g["index"]])
    # A gradient may come back in the grouped view its kernel computed it
    # in (GroupNorm's dgamma as groups x channels-per-group): the same
    # row-major elements, so a view gives the argument's shape.
    return [g.reshape(arg_shapes[i]) if g is not None and
            g.shape != arg_shapes[i] and g.numel() == arg_shapes[i].numel()
            else g for i, g in enumerate(grads)]
