"""torch.autocast as fuser compiles it: an exported program traced again
under CUDA autocast, so that autocast's own casts (bf16 or f16 matmuls and
linears, f32 norms, softmaxes and sums: PyTorch's policy, not a copy of
it) are explicit ops of the graph; then exported again like any program.

The trace runs on fake CUDA tensors, so it needs no GPU: autocast's CUDA
kernels only cast, and `torch.autocast("cuda")` itself (which refuses
without CUDA) is replaced by the dispatcher's own switches. Torch only."""

from __future__ import annotations

import contextlib

import torch

from ..._native import FuserError
from .._package import AUTOCAST_DTYPES


@contextlib.contextmanager
def cuda_autocast(name: str):
    """CUDA autocast to AUTOCAST_DTYPES[name], on in this thread whether
    or not CUDA is available."""
    enabled = torch.is_autocast_enabled("cuda")
    dtype = torch.get_autocast_dtype("cuda")
    torch.set_autocast_enabled("cuda", True)
    torch.set_autocast_dtype("cuda", AUTOCAST_DTYPES[name])
    torch.autocast_increment_nesting()
    try:
        yield
    finally:
        if torch.autocast_decrement_nesting() == 0:
            torch.clear_autocast_cache()
        torch.set_autocast_enabled("cuda", enabled)
        torch.set_autocast_dtype("cuda", dtype)


def with_autocast(program, name: str, dynamic_shapes):
    """The ExportedProgram `program` computes under CUDA autocast to `name`
    ("bf16", "f16"), with the casts as ops: its graph traced on fake CUDA
    copies of its arguments (the same fake mode, so symbolic sizes stay
    symbolic), then exported on the program's own argument tensors."""
    from torch._guards import detect_fake_mode
    from torch.fx.experimental.proxy_tensor import make_fx

    values = [n.meta["val"] for n in
              program.graph_module.graph.find_nodes(op="placeholder")]
    fake_mode = detect_fake_mode(values)
    if fake_mode is None:
        raise FuserError("the exported program has no fake tensors to trace "
                         "autocast on")
    with fake_mode:
        on_cuda = [torch.empty_strided(v.shape, v.stride(), dtype=v.dtype,
                                       device="cuda") for v in values]
    with cuda_autocast(name):
        traced = make_fx(program.module(), tracing_mode="real")(*on_cuda)
    # The wrapper's dynamic_shapes name its one *flat parameter; the traced
    # graph takes the flat arguments as parameters of their own.
    per_argument = dynamic_shapes[0] if dynamic_shapes is not None else None
    return torch.export.export(traced, tuple(values),
                               dynamic_shapes=per_argument)
