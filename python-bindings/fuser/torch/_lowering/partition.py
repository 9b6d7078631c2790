"""The joint forward+backward graph of an exported program, traced by
AOTAutograd and split by its min-cut partitioner into the forward and
backward graphs fuser compiles."""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import torch

from ..._native import FuserError
from .masks import read_masks_off_outputs
from .recompute import recompute_after_reductions, recompute_all


def partitioned_graphs(program, requires_grad: Sequence[bool],
                       recompute: str = "policy"
                       ) -> Tuple[torch.fx.GraphModule, torch.fx.GraphModule,
                                  List[int], List[int]]:
    """(forward, backward, differentiable outputs, mutated arguments) of an
    ExportedProgram with flat arguments: the fx graphs from AOTAutograd's
    joint graph and min-cut partitioner, run on the program's own fake
    tensors (so dynamic sizes stay symbolic); the indices of the outputs
    that depend on an argument requiring grad (the backward takes their
    gradients, in order); and the arguments the forward updates in place
    (BatchNorm's running statistics in training mode), whose new values the
    forward graph returns first, in this order.
    Nodes keep the export's stack traces (the user's lines). `recompute`:
    "policy" (masks read off outputs, values after reductions recomputed)
    or "all" (recompute_all: only arguments are saved)."""
    from torch._functorch.aot_autograd import (aot_module_simplified,
                                               make_boxed_func)
    from torch._functorch.partitioners import \
        min_cut_rematerialization_partition
    from torch._guards import TracingContext, detect_fake_mode, tracing
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    gm = program.graph_module
    values = [n.meta["val"] for n in gm.graph.find_nodes(op="placeholder")]
    if len(values) != len(requires_grad):
        raise FuserError(f"the exported graph takes {len(values)} arguments; "
                         f"expected {len(requires_grad)}")
    fake_mode = detect_fake_mode(values)
    captured: Dict[str, torch.fx.GraphModule] = {}
    mutated: List[int] = []

    def capture(kind):
        def compiler(graph, example_inputs):
            captured[kind] = graph
            if kind == "forward":
                # AOTAutograd's view of the inputs (set in the tracing
                # context opened below): which it updates in place.
                meta = TracingContext.get().fw_metadata
                for i, info in enumerate(meta.input_info):
                    if info.mutates_metadata and not info.mutates_data:
                        raise FuserError(
                            f"the module changes argument {i}'s shape or "
                            "strides in place; fuser.torch does not train it")
                    if info.mutates_data:
                        mutated.append(i)
            return make_boxed_func(graph)
        return compiler

    with fake_mode:
        args = [v.detach().clone().requires_grad_(bool(g) and
                                                  v.is_floating_point())
                for v, g in zip(values, requires_grad)]
    def partition(joint, joint_inputs, **kwargs):
        if recompute == "all":
            recompute_all(joint)
        else:
            read_masks_off_outputs(joint)
            recompute_after_reductions(joint,
                                       kwargs.get("num_fwd_outputs", 0))
        return min_cut_rematerialization_partition(joint, joint_inputs,
                                                   **kwargs)

    with tracing(TracingContext(fake_mode)):
        run = aot_module_simplified(
            gm, args, fw_compiler=capture("forward"),
            bw_compiler=capture("backward"),
            partition_fn=partition,
            decompositions=get_decomposition_table())
    with fake_mode:
        outs = run(*args)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        differentiable = [i for i, o in enumerate(outs)
                          if isinstance(o, torch.Tensor) and o.requires_grad]
        outs = [outs[i] for i in differentiable]
        if not outs:
            raise FuserError("no output of the module depends on a tensor "
                             "that requires a gradient: nothing to train")
        torch.autograd.backward(outs, [torch.ones_like(o) for o in outs])
    if "backward" not in captured:
        raise FuserError("AOTAutograd made no backward graph")
    return captured["forward"], captured["backward"], differentiable, mutated
