"""What the min-cut partitioner recomputes in the backward rather than
saves from the forward (node.meta["recompute"] policies on the joint
graph)."""

from __future__ import annotations

import torch

from .fx_graph import output_node, view_ops


def _is_reduction(node: torch.fx.Node) -> bool:
    aten = torch.ops.aten
    return node.target in (aten.var_mean.correction, aten.sum.dim_IntList,
                           aten.mean.dim, aten.var.correction,
                           aten.amax.default, aten.amin.default,
                           aten._softmax.default, aten._log_softmax.default)


def recompute_after_reductions(joint: torch.fx.GraphModule,
                               num_fwd_outputs: int = 0) -> None:
    """Marks the forward's values computed from a reduction (GroupNorm's
    statistics and what the normalisation makes of them) for recomputation
    in the backward: a forward kernel then need not return them, which
    would end its fusion group (fuser fuses a group norm into the matmul
    before it only when the statistics stay inside the kernel). The
    partitioner saves the reduction's input instead."""
    from torch.utils.checkpoint import CheckpointPolicy

    backward = set()
    for node in joint.graph.nodes:  # Nodes that need an output's gradient.
        if (node.op == "placeholder" and node.name.startswith("tangents")) \
                or any(a in backward for a in node.all_input_nodes):
            backward.add(node)
    # The forward's outputs are computed anyway: saving them is free.
    outputs = set(output_node(joint.graph).args[0][:num_fwd_outputs])
    after = set()
    views = view_ops()
    for node in joint.graph.nodes:
        if node in backward or node.op != "call_function":
            continue
        if _is_reduction(node) or any(a in after
                                      for a in node.all_input_nodes):
            after.add(node)
            if node not in outputs:
                node.meta["recompute"] = CheckpointPolicy.MUST_RECOMPUTE
        if _is_reduction(node):
            # Save what the reduction reads (h = x·Wᵀ + b before a
            # GroupNorm: the matmul's epilogue result) rather than the
            # matmul's raw product, which would end the epilogue before
            # the bias and cost the forward a kernel.
            src = node.args[0]
            while isinstance(src, torch.fx.Node) and src.target in views:
                src = src.args[0]
            if isinstance(src, torch.fx.Node) and src.op == "call_function" \
                    and src not in after:
                src.meta["recompute"] = CheckpointPolicy.MUST_SAVE


def recompute_all(joint: torch.fx.GraphModule) -> None:
    """Marks every value the forward computes for recomputation in the
    backward: the partitioner saves nothing but the forward's arguments, so
    the backward kernel takes the arguments and the outputs' gradients only
    (fuser.torch.elementwise: backward(grad_out, x), as a KernelInterface
    has it; recomputing elementwise values costs the backward's kernel no
    extra memory traffic)."""
    from torch.utils.checkpoint import CheckpointPolicy

    backward = set()
    for node in joint.graph.nodes:
        if (node.op == "placeholder" and node.name.startswith("tangents")) \
                or any(a in backward for a in node.all_input_nodes):
            backward.add(node)
        elif node.op == "call_function":
            node.meta["recompute"] = CheckpointPolicy.MUST_RECOMPUTE
