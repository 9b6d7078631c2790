"""torch.export of a module's forward as a function of its state and tensor
inputs, on tensors without data: `meta` tensors first (GroupNorm keeps its
broadcast form, also with a dynamic batch), then fake CPU tensors
(FakeTensorMode) where the meta export or torch-mlir's lowering of it fails:
the decompositions of cross_entropy, kl_div, logsumexp, triu and tril leave
constants on `meta` that torch-mlir cannot legalize, and export as they do
on real tensors on fake CPU ones (`export_attempts`). The weights are
arguments, never frozen into the IR. Torch only."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile

from typing import Any, Callable, Optional, Sequence, TypeVar

import torch

from ..._native import FuserError
from .._lowering.graph_split import LeftToPyTorch, exported_pytorch_ops
from .autocast import with_autocast
from .binding import ForwardBinding

T = TypeVar("T")


# Where export_program places the tensors it exports on, in the order
# export_attempts tries them.
EXPORT_DEVICES = ("meta", "cpu")


def _dataless(tensors: Sequence[torch.Tensor], device: str) -> tuple:
    """Tensors of `tensors`' shapes and dtypes without data: `meta` ones, or
    fake ones on `device` in a fake mode of their own (torch.export traces
    in it)."""
    if device == "meta":
        return tuple(torch.empty(t.shape, dtype=t.dtype, device="meta")
                     for t in tensors)
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    mode = FakeTensorMode(shape_env=ShapeEnv(), allow_non_fake_inputs=True)
    with mode:
        return tuple(torch.empty(t.shape, dtype=t.dtype, device=device)
                     for t in tensors)


@contextlib.contextmanager
def _captured_stderr(into: list):
    """What the process writes to file descriptor 2 meanwhile (torch-mlir's
    pass manager prints its diagnostics there, past Python) appended to
    `into` instead."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            f.seek(0)
            into.append(f.read().decode(errors="replace"))


def export_attempts(attempt: Callable[[str], T]) -> T:
    """attempt(device) for each of EXPORT_DEVICES until one returns; if
    every one raises, the first error (meta's) is raised. What an attempt
    prints to stderr shows only if it is the one that counts (it returned,
    or every attempt failed): a failed meta attempt that the next one
    repairs prints nothing. LeftToPyTorch is no failure: raised at once."""
    first: Optional[BaseException] = None
    first_output = ""
    for device in EXPORT_DEVICES:
        output: list = []
        try:
            with _captured_stderr(output):
                result = attempt(device)
        except LeftToPyTorch:
            raise
        except Exception as e:  # noqa: BLE001 - export or torch-mlir errors.
            if first is None:
                first, first_output = e, "".join(output)
            continue
        sys.stderr.write("".join(output))
        return result
    assert first is not None
    sys.stderr.write(first_output)
    raise first


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
                   inputs: Sequence[torch.Tensor], dynamic_shapes,
                   device: str = "meta", autocast: Optional[str] = None):
    """torch.export of the functional wrapper on dataless tensors of
    `device` (EXPORT_DEVICES; before decompositions): (state..., tensor
    inputs...) -> flat outputs; under CUDA autocast to `autocast` ("bf16",
    "f16": autocast.py) when given. Raises LeftToPyTorch where the program
    has ops fuser.torch.compile leaves to PyTorch (convolutions, random
    numbers), before torch-mlir sees them."""
    wrapper = _Functional(binding.module, binding.state_names,
                          binding.template, binding.positions,
                          binding.keywords)
    flat = _dataless([*state, *inputs], device)
    program = torch.export.export(wrapper, flat,
                                  dynamic_shapes=dynamic_shapes)
    left = exported_pytorch_ops(program.graph_module)
    if left:
        raise LeftToPyTorch(left)
    if autocast is not None:
        program = with_autocast(program, autocast, dynamic_shapes)
    return program


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
    if isinstance(spec.type, type) and issubclass(spec.type, tuple):
        # torch.max's and torch.sort's structseqs come back as themselves
        # (out.values works); other named tuples as plain tuples.
        tree = {"type": "tuple", "items": items}
        if getattr(torch.return_types, spec.type.__name__, None) is spec.type:
            tree["return_type"] = spec.type.__name__
        return tree
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
