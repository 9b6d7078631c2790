"""The plan of a training variant: what crosses from the forward kernel to
the backward kernel (the format: _conversion/training.py). plan_graphs
rewrites the partitioned graphs into what fuser compiles and returns it."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import torch

from ..._native import FuserError
from .fx_graph import (is_tensor, output_node, placeholders, sym_dims,
                       view_ops)
from .masks import sign_source


# Element types fuser's kernels do not return: a saved value of one is
# recomputed in the backward from its operands.
_NOT_A_RESULT = (torch.bool,)


def _view_chain(node: torch.fx.Node) -> Optional[Tuple[torch.fx.Node,
                                                       List[torch.fx.Node]]]:
    """(argument placeholder, [view ops from it to node]) when `node` is
    only views of a placeholder; else None."""
    chain = []
    views = view_ops()
    while node.op == "call_function" and node.target in views:
        others: List[torch.fx.Node] = []
        torch.fx.node.map_arg((node.args[1:], node.kwargs), others.append)
        if others:
            return None  # Sizes computed in the forward (dynamic shapes).
        chain.append(node)
        node = node.args[0]
        if not isinstance(node, torch.fx.Node):
            return None
    if node.op != "placeholder" or not chain:
        return None
    return node, chain[::-1]


# Ops whose result is their operand: AOTAutograd saves relu's output for
# its backward as alias(alias(relu)), which would be the output's buffer
# returned twice.
_ALIASES = (torch.ops.aten.alias.default, torch.ops.aten.detach.default)


def _unaliased(node: torch.fx.Node) -> torch.fx.Node:
    while node.op == "call_function" and node.target in _ALIASES:
        node = node.args[0]
    return node


def plan_graphs(fw: torch.fx.GraphModule, bw: torch.fx.GraphModule,
                n_outputs: int, n_args: int,
                differentiable: Optional[Sequence[int]] = None) -> dict:
    """Rewrites the partitioned graphs in place into what fuser compiles and
    returns the plan (module docstring): the forward returns the module's
    outputs and the saved values only it can compute; the backward takes
    those, forward arguments and the gradients of the `differentiable`
    outputs (indices; default all), and returns each gradient once."""
    if differentiable is None:
        differentiable = list(range(n_outputs))
    fw_args = placeholders(fw.graph)
    if len(fw_args) != n_args:
        raise FuserError(f"the forward graph takes {len(fw_args)} arguments; "
                         f"the module has {n_args} tensors")
    fw_out = list(output_node(fw.graph).args[0])
    bw_in = placeholders(bw.graph)
    tangents = [p for p in bw_in if p.name.startswith("tangents")]
    saved_in = [p for p in bw_in if not p.name.startswith("tangents")]
    if len(fw_out) != n_outputs + len(saved_in):
        raise FuserError(
            f"the forward graph returns {len(fw_out)} values for "
            f"{n_outputs} outputs and {len(saved_in)} saved ones (outputs "
            "that alias inputs, or updated buffers, are not supported in "
            "training)")
    by_name = {n.name: n for n in fw_out[n_outputs:]
               if isinstance(n, torch.fx.Node)}
    for i, o in enumerate(fw_out[:n_outputs]):
        if not isinstance(o, torch.fx.Node) or o.op == "placeholder":
            raise FuserError(f"output {i} of the module is one of its "
                             "arguments unchanged; fuser's kernels compute "
                             "their results")
    if len(tangents) != len(differentiable):
        raise FuserError(f"the backward graph takes {len(tangents)} output "
                         f"gradients for {len(differentiable)} "
                         "differentiable outputs")
    arg_index = {p: i for i, p in enumerate(fw_args)}
    g = bw.graph
    first = next(n for n in g.nodes if n.op != "placeholder")

    # Backward placeholders by where their values come from; one per source.
    sources: Dict[tuple, torch.fx.Node] = {}
    results: List[torch.fx.Node] = list(fw_out[:n_outputs])

    def source_placeholder(key: tuple, like: torch.fx.Node,
                           name: str) -> torch.fx.Node:
        if key not in sources:
            with g.inserting_before(first):
                p = g.placeholder(name)
            p.meta = dict(like.meta)
            sources[key] = p
        return sources[key]

    memo: Dict[torch.fx.Node, torch.fx.Node] = {}

    def bw_value(node: torch.fx.Node, like: torch.fx.Node) -> torch.fx.Node:
        """A backward node with the value of forward node `node`."""
        node = _unaliased(node)
        if node in memo:
            return memo[node]
        if node.op == "placeholder":
            new = source_placeholder(("arg", arg_index[node]), node,
                                     f"arg_{node.name}")
        elif _view_chain(node) is not None:
            base, views = _view_chain(node)
            env = {base: bw_value(base, base)}
            with g.inserting_before(first):
                for v in views:
                    env[v] = g.node_copy(v, lambda a: env[a])
            new = env[views[-1]]
        elif sign_source(node) is not None:
            # y > 0 read off an activation of y that keeps its sign (the
            # module's output, usually): nothing more to save.
            with g.inserting_before(first):
                new = g.node_copy(node, lambda a: bw_value(sign_source(node),
                                                           a))
        elif node.meta["val"].dtype in _NOT_A_RESULT:
            # fuser's kernels do not return i1 tensors (a mask): the
            # backward recomputes it from its operands.
            def operand(a):
                if is_tensor(a):
                    return bw_value(a, a)
                raise FuserError(f"the backward needs '{node.name}' "
                                 f"({node.meta['val'].dtype}), computed "
                                 "from a size")
            with g.inserting_before(first):
                new = g.node_copy(node, operand)
        else:
            if node not in results:
                results.append(node)
            r = results.index(node)
            new = source_placeholder(("result", r), like, f"saved_{node.name}")
        memo[node] = new
        return new

    symbolic: List[torch.fx.Node] = []
    for p in saved_in:
        if p.name not in by_name:
            raise FuserError(f"the backward's '{p.name}' is not among the "
                             "forward's saved values")
        node = by_name[p.name]
        if not is_tensor(node):
            symbolic.append(p)  # A size: from a tensor argument, below.
            continue
        p.replace_all_uses_with(bw_value(node, p))
        g.erase_node(p)
    for i, t in zip(differentiable, tangents):
        t.replace_all_uses_with(source_placeholder(("grad", i), t,
                                                   f"grad_{i}"))
        g.erase_node(t)
    # Saved sizes (dynamic shapes): read them off a tensor argument.
    for p in symbolic:
        expr = p.meta["val"].node.expr
        found = None
        for q in list(sources.values()):
            for d, s in sym_dims(q):
                if s.node.expr == expr:
                    found = (q, d, s)
                    break
            if found:
                break
        if found is None:
            raise FuserError(f"the backward needs the size {expr}, which no "
                             "tensor it takes has")
        q, d, s = found
        with g.inserting_before(first):
            size = g.call_function(torch.ops.aten.sym_size.int, (q, d))
        size.meta["val"] = s
        p.replace_all_uses_with(size)
        g.erase_node(p)

    # Placeholders first, in the order they were made.
    head = next(n for n in g.nodes if n.op != "placeholder")
    for p in placeholders(g):
        head.prepend(p)

    # The backward's results: one per gradient, each once; an argument
    # returned unchanged is passed on, not a kernel result.
    g.eliminate_dead_code()
    out = output_node(g)
    grads_out = list(out.args[0])
    if len(grads_out) != n_args:
        raise FuserError(f"the backward graph returns {len(grads_out)} "
                         f"gradients for {n_args} arguments")
    kernel: List[torch.fx.Node] = []
    grads: List[Optional[dict]] = []
    for node in grads_out:
        if node is None:
            grads.append(None)
        elif node.op == "placeholder":
            grads.append({"from": "arg", "node": node})
        else:
            if node not in kernel:
                kernel.append(node)
            grads.append({"from": "result", "index": kernel.index(node)})
    if not kernel:
        raise FuserError("the backward computes no gradient (every one is "
                         "an argument unchanged)")
    out.args = (tuple(kernel),)
    # Unused sources are not passed (nor saved).
    for key, p in list(sources.items()):
        if not p.users:
            g.erase_node(p)
            del sources[key]
    bw_args = placeholders(g)
    key_of = {p: k for k, p in sources.items()}
    backward_args = [{"from": key_of[p][0], "index": key_of[p][1]}
                     for p in bw_args]
    for entry in grads:
        if entry is not None and entry["from"] == "arg":
            entry["index"] = bw_args.index(entry.pop("node"))
    bw.recompile()

    # The forward returns the outputs and the saved results the backward
    # reads, renumbered.
    used = sorted({a["index"] for a in backward_args
                   if a["from"] == "result" and a["index"] >= n_outputs})
    renumber = {r: n_outputs + i for i, r in enumerate(used)}
    for a in backward_args:
        if a["from"] == "result":
            a["index"] = renumber.get(a["index"], a["index"])
    fw_results = results[:n_outputs] + [results[r] for r in used]
    output_node(fw.graph).args = (tuple(fw_results),)
    fw.graph.eliminate_dead_code()
    fw.recompile()
    plan = {"outputs": n_outputs, "backward_args": backward_args,
            "grads": grads}
    if list(differentiable) != list(range(n_outputs)):
        plan["differentiable"] = list(differentiable)
    return plan


def backward_arg_names(plan: dict, fw_names: Sequence[str],
                       fw_results: Sequence[str]) -> List[str]:
    names = []
    for a in plan["backward_args"]:
        if a["from"] == "arg":
            names.append(f"arg:{fw_names[a['index']]}")
        elif a["from"] == "grad":
            names.append(f"grad:{a['index']}")
        else:
            names.append(f"saved:{fw_results[a['index']]}")
    return names
