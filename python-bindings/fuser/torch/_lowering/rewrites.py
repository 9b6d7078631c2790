"""Rewrites of aten-level fx graphs into forms fuser compiles well; both
fuser.torch.compile(training=True) and the dynamo backend run them on the
graphs they import."""

from __future__ import annotations

import torch

from .fx_graph import fake_call, is_tensor


def fold_permutes(gm: torch.fx.GraphModule) -> None:
    """permute(permute(x)) as one permute, or x when they cancel (AOTAutograd
    writes nn.Linear's weight gradient as (gᵀ·x)ᵀᵀ and the input gradient
    through Wᵀᵀ)."""
    permute = torch.ops.aten.permute.default
    changed = False
    for node in list(gm.graph.nodes):
        if node.target is not permute or not isinstance(node.args[0],
                                                        torch.fx.Node):
            continue
        inner = node.args[0]
        if inner.target is not permute:
            continue
        outer_dims, inner_dims = list(node.args[1]), list(inner.args[1])
        rank = len(outer_dims)
        dims = [inner_dims[d % rank] % rank for d in outer_dims]
        if dims == list(range(rank)):
            node.replace_all_uses_with(inner.args[0])
        else:
            with gm.graph.inserting_before(node):
                new = gm.graph.call_function(permute, (inner.args[0], dims))
            new.meta = dict(node.meta)
            node.replace_all_uses_with(new)
        changed = True
    if changed:
        gm.graph.eliminate_dead_code()
        gm.recompile()


# fuser compiles a reduction only over inner dims today: a sum over the batch
# (a bias gradient: linalg.generic with iterators [reduction, parallel])
# leaves a host loop the manifest cannot describe. While that holds,
# inner_reductions() rewrites such sums as a transpose (a pointwise kernel)
# and a row sum; set to False once fuser reduces over outer dims (or fuses
# db into the dW = gᵀ·x kernel), so the IR keeps the plain form.
COLUMN_SUMS_AS_ROW_SUMS = True


def inner_reductions(gm: torch.fx.GraphModule) -> None:
    """A sum over size-1 dims as a squeeze (no kernel); with
    COLUMN_SUMS_AS_ROW_SUMS, a sum over dims that are not the innermost ones
    as a permute that makes them innermost, a sum over the last dims, and
    unsqueezes for keepdim."""
    aten = torch.ops.aten
    changed = False
    for node in list(gm.graph.nodes):
        if node.target is not aten.sum.dim_IntList:
            continue
        x = node.args[0]
        if not isinstance(x, torch.fx.Node) or not is_tensor(x):
            continue
        if node.kwargs.get("dtype") is not None:
            continue
        rank = x.meta["val"].dim()
        dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
        if not dims or rank == 0:
            continue
        keepdim = (node.args[2] if len(node.args) > 2
                   else node.kwargs.get("keepdim", False))
        dims = sorted({d % rank for d in dims})
        shape = x.meta["val"].shape
        if all(isinstance(shape[d], int) and shape[d] == 1 for d in dims):
            # A sum over size-1 dims (AOTAutograd's GroupNorm backward has
            # two) is a view: no reduction kernel.
            if keepdim:
                node.replace_all_uses_with(x)
            else:
                new = x
                with gm.graph.inserting_before(node):
                    for d in reversed(dims):
                        new = fake_call(gm.graph, aten.squeeze.dim, (new, d))
                        new.meta["stack_trace"] = node.meta.get("stack_trace")
                node.replace_all_uses_with(new)
            gm.graph.erase_node(node)
            changed = True
            continue
        if dims == list(range(rank - len(dims), rank)) or \
                not COLUMN_SUMS_AS_ROW_SUMS:
            continue  # Already innermost, or left to fuser.
        kept = [d for d in range(rank) if d not in dims]
        g = gm.graph
        with g.inserting_before(node):
            t = fake_call(g, aten.permute.default, (x, kept + dims))
            new = fake_call(g, aten.sum.dim_IntList,
                             (t, list(range(len(kept), rank)), False))
            if keepdim:
                for d in dims:
                    new = fake_call(g, aten.unsqueeze.default, (new, d))
        for key in ("stack_trace", "nn_module_stack", "seq_nr"):
            if key in node.meta:
                for n in (t, new):
                    n.meta.setdefault(key, node.meta[key])
        node.replace_all_uses_with(new)
        g.erase_node(node)
        changed = True
    if changed:
        gm.graph.eliminate_dead_code()
        gm.recompile()
