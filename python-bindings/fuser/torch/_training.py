"""Training through fuser.torch: fuser's kernels for the forward and the
backward of a module, as one torch.autograd.Function.

compile(module, example_inputs, training=True):

1. torch.export of the same functional wrapper as the forward-only path
   (_compile._Compiler.program: parameters and buffers are arguments, never
   frozen; `meta` tensors; dynamic dims as `?`).
2. AOTAutograd traces the joint forward+backward of that graph (with
   torch-mlir's decomposition table, the one the forward-only path uses) and
   its min-cut partitioner splits it into a forward graph (outputs, then the
   tensors saved for the backward) and a backward graph (saved tensors and
   the outputs' gradients in, the arguments' gradients out). The
   partitioner decides what to save: it recomputes cheap pointwise values in
   the backward instead of saving them.
3. Both graphs are cleaned for fuser (_plan): a saved value that is an
   argument (a weight, the input) or a view of one is not a kernel result
   but passed to the backward from the argument itself (the view recomputed
   there); a saved size (dynamic shapes) becomes a size of a backward
   argument; results returned twice or returned unchanged are kernel
   results once / not at all.
4. Each graph goes through torch-mlir's FX importer (_compile.import_graph)
   and fuser.compile (the same cache and unfused retry as the forward-only
   path).

The package holds, per shape variant, a forward variant (`static`,
`dynamic`) and its backward (`static-backward`); the forward variant's info
has the plan ("training" below), so loading needs only torch and fuser's
runtime:

    "training": {
      "backward": "static-backward",     the backward variant's name
      "outputs": 1,                      the module's output tensors: the
                                         forward kernel's first results;
                                         the rest are saved for the backward
      "backward_args": [                 the backward kernel's arguments:
        {"from": "result", "index": 1},  a forward kernel result
        {"from": "arg", "index": 0},     a forward kernel argument (a weight)
        {"from": "grad", "index": 0}],   the gradient of output 0
      "grads": [                         per forward kernel argument:
        {"from": "result", "index": 0},  a backward kernel result
        {"from": "arg", "index": 2},     a backward argument, unchanged
        null]                            no gradient (buffers; inputs with
    }                                    input_grads=False)

Argument order of the forward kernel: as the forward-only path (parameters,
buffers, tensor inputs). The backward kernel's arguments are named in its
manifest (`saved:mm`, `arg:lin.weight`, `grad:0`).
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import torch
from torch.autograd.function import once_differentiable

from .._native import FuserError
from . import _module
from ._module import CompiledModule, Package, Variant

# Ops that only view their first argument: a saved value made of these from
# a forward argument is recomputed in the backward, not a kernel result.
_VIEW_OPS = None


def _view_ops():
    global _VIEW_OPS
    if _VIEW_OPS is None:
        aten, prims = torch.ops.aten, torch.ops.prims
        _VIEW_OPS = {
            aten.permute.default, aten.t.default, aten.transpose.int,
            aten.view.default, aten.reshape.default, aten._unsafe_view.default,
            aten.unsqueeze.default, aten.squeeze.dim, aten.squeeze.dims,
            aten.squeeze.default, aten.alias.default, aten.expand.default,
            prims.squeeze.default, prims.broadcast_in_dim.default,
        }
    return _VIEW_OPS


# Element types fuser's kernels do not return: a saved value of one is
# recomputed in the backward from its operands.
_NOT_A_RESULT = (torch.bool,)


def _keeps_sign(u: torch.fx.Node, y: torch.fx.Node) -> bool:
    """Whether u = f(y) is positive exactly where y is (relu, leaky_relu
    with a slope >= 0, y + y, y times a number >= 1)."""
    aten = torch.ops.aten
    if not u.args or u.args[0] is not y:
        return False
    if u.target is aten.relu.default:
        return True
    if u.target is aten.leaky_relu.default:
        slope = u.args[1] if len(u.args) > 1 else u.kwargs.get(
            "negative_slope", 0.01)
        return isinstance(slope, (int, float)) and slope >= 0
    if u.target is aten.add.Tensor:
        return len(u.args) > 1 and u.args[1] is y and \
            u.kwargs.get("alpha", 1) == 1
    if u.target is aten.mul.Tensor:
        c = u.args[1] if len(u.args) > 1 else None
        # c >= 1: a positive y times c cannot underflow to 0.
        return isinstance(c, (int, float)) and c >= 1
    return False


def _sign_source(node: torch.fx.Node) -> Optional[torch.fx.Node]:
    """For `gt(y, 0)` (leaky_relu's backward mask), the last of a chain of
    y's sign-keeping users in the same graph (W2: leaky_relu(y); W3:
    leaky_relu(y) + itself, the output), or None."""
    if node.target is not torch.ops.aten.gt.Scalar or node.args[1] != 0:
        return None
    y = node.args[0]
    if not isinstance(y, torch.fx.Node):
        return None
    found = None
    while True:
        nxt = next((u for u in y.users if u is not node and
                    _keeps_sign(u, y)), None)
        if nxt is None:
            return found
        found = y = nxt


def read_masks_off_outputs(joint: torch.fx.GraphModule) -> None:
    """leaky_relu's backward mask `y > 0` as `out > 0` where out is the
    last sign-keeping value computed from y (the module's output, usually),
    which the forward returns anyway: the partitioner then has nothing
    more to save for it."""
    for node in list(joint.graph.nodes):
        source = _sign_source(node)
        if source is not None:
            node.args = (source,) + tuple(node.args[1:])


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


def _fake_call(graph: torch.fx.Graph, target, args: tuple) -> torch.fx.Node:
    """A call_function node with its meta["val"] (what torch-mlir's
    importer reads its type from), computed on the arguments' fake
    tensors."""
    from torch._guards import detect_fake_mode

    vals = []
    torch.fx.node.map_arg(args, lambda n: vals.append(n.meta["val"]))
    fake = torch.fx.node.map_aggregate(
        args, lambda a: a.meta["val"] if isinstance(a, torch.fx.Node) else a)
    node = graph.call_function(target, args)
    with detect_fake_mode(vals):
        node.meta["val"] = target(*fake)
    return node


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
        if not isinstance(x, torch.fx.Node) or not _is_tensor(x):
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
                        new = _fake_call(gm.graph, aten.squeeze.dim, (new, d))
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
            t = _fake_call(g, aten.permute.default, (x, kept + dims))
            new = _fake_call(g, aten.sum.dim_IntList,
                             (t, list(range(len(kept), rank)), False))
            if keepdim:
                for d in dims:
                    new = _fake_call(g, aten.unsqueeze.default, (new, d))
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
    outputs = set(_output_node(joint.graph).args[0][:num_fwd_outputs])
    after = set()
    views = _view_ops()
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


# -- 2. the joint graph, partitioned ----------------------------------------

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


def partitioned_graphs(program, requires_grad: Sequence[bool],
                       recompute: str = "policy"
                       ) -> Tuple[torch.fx.GraphModule, torch.fx.GraphModule]:
    """(forward, backward) fx graphs of an ExportedProgram with flat
    arguments, from AOTAutograd's joint graph and min-cut partitioner, run
    on the program's own fake tensors (so dynamic sizes stay symbolic).
    Nodes keep the export's stack traces (the user's lines). `recompute`:
    "policy" (masks read off outputs, values after reductions recomputed)
    or "all" (recompute_all: only arguments are saved)."""
    from torch._functorch.aot_autograd import (aot_module_simplified,
                                               make_boxed_func)
    from torch._functorch.partitioners import \
        min_cut_rematerialization_partition
    from torch._guards import detect_fake_mode
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    gm = program.graph_module
    values = [n.meta["val"] for n in gm.graph.find_nodes(op="placeholder")]
    if len(values) != len(requires_grad):
        raise FuserError(f"the exported graph takes {len(values)} arguments; "
                         f"expected {len(requires_grad)}")
    fake_mode = detect_fake_mode(values)
    captured: Dict[str, torch.fx.GraphModule] = {}

    def capture(kind):
        def compiler(graph, example_inputs):
            captured[kind] = graph
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

    run = aot_module_simplified(
        gm, args, fw_compiler=capture("forward"),
        bw_compiler=capture("backward"),
        partition_fn=partition,
        decompositions=get_decomposition_table())
    with fake_mode:
        outs = run(*args)
        outs = [o for o in (outs if isinstance(outs, (list, tuple))
                            else [outs])
                if isinstance(o, torch.Tensor) and o.requires_grad]
        if not outs:
            raise FuserError("no output of the module depends on a tensor "
                             "that requires a gradient: nothing to train")
        torch.autograd.backward(outs, [torch.ones_like(o) for o in outs])
    if "backward" not in captured:
        raise FuserError("AOTAutograd made no backward graph")
    return captured["forward"], captured["backward"]


# -- 3. the plan: what crosses from the forward to the backward ---------------

def _placeholders(graph: torch.fx.Graph) -> List[torch.fx.Node]:
    return list(graph.find_nodes(op="placeholder"))


def _output_node(graph: torch.fx.Graph) -> torch.fx.Node:
    return next(iter(graph.find_nodes(op="output")))


def _view_chain(node: torch.fx.Node) -> Optional[Tuple[torch.fx.Node,
                                                       List[torch.fx.Node]]]:
    """(argument placeholder, [view ops from it to node]) when `node` is
    only views of a placeholder; else None."""
    chain = []
    views = _view_ops()
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


def _is_tensor(node: torch.fx.Node) -> bool:
    return isinstance(node.meta.get("val"), torch.Tensor)


def _sym_dims(node: torch.fx.Node):
    """(dim, size) pairs of a tensor placeholder's symbolic sizes."""
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        return []
    return [(d, s) for d, s in enumerate(val.shape)
            if isinstance(s, torch.SymInt)]


def plan_graphs(fw: torch.fx.GraphModule, bw: torch.fx.GraphModule,
                n_outputs: int, n_args: int) -> dict:
    """Rewrites the partitioned graphs in place into what fuser compiles and
    returns the plan (module docstring): the forward returns the module's
    outputs and the saved values only it can compute; the backward takes
    those, forward arguments and the outputs' gradients, and returns each
    gradient once."""
    fw_args = _placeholders(fw.graph)
    if len(fw_args) != n_args:
        raise FuserError(f"the forward graph takes {len(fw_args)} arguments; "
                         f"the module has {n_args} tensors")
    fw_out = list(_output_node(fw.graph).args[0])
    bw_in = _placeholders(bw.graph)
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
    if len(tangents) != n_outputs:
        raise FuserError(f"the backward graph takes {len(tangents)} output "
                         f"gradients for {n_outputs} outputs (outputs that "
                         "need no gradient are not supported)")
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
        elif _sign_source(node) is not None:
            # y > 0 read off an activation of y that keeps its sign (the
            # module's output, usually): nothing more to save.
            with g.inserting_before(first):
                new = g.node_copy(node, lambda a: bw_value(_sign_source(node),
                                                           a))
        elif node.meta["val"].dtype in _NOT_A_RESULT:
            # fuser's kernels do not return i1 tensors (a mask): the
            # backward recomputes it from its operands.
            def operand(a):
                if _is_tensor(a):
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
        if not _is_tensor(node):
            symbolic.append(p)  # A size: from a tensor argument, below.
            continue
        p.replace_all_uses_with(bw_value(node, p))
        g.erase_node(p)
    for i, t in enumerate(tangents):
        t.replace_all_uses_with(source_placeholder(("grad", i), t,
                                                   f"grad_{i}"))
        g.erase_node(t)
    # Saved sizes (dynamic shapes): read them off a tensor argument.
    for p in symbolic:
        expr = p.meta["val"].node.expr
        found = None
        for q in list(sources.values()):
            for d, s in _sym_dims(q):
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
    for p in _placeholders(g):
        head.prepend(p)

    # The backward's results: one per gradient, each once; an argument
    # returned unchanged is passed on, not a kernel result.
    g.eliminate_dead_code()
    out = _output_node(g)
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
    bw_args = _placeholders(g)
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
    _output_node(fw.graph).args = (tuple(fw_results),)
    fw.graph.eliminate_dead_code()
    fw.recompile()
    return {"outputs": n_outputs, "backward_args": backward_args,
            "grads": grads}


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


# -- 4. compile ------------------------------------------------------------------

def _variant_pair(compiler, name: str, state: Sequence[torch.Tensor],
                  inputs: Sequence[torch.Tensor], dynamic,
                  input_grads: bool) -> Tuple[Variant, Variant]:
    """Exports, partitions, plans and compiles one forward/backward pair."""
    from ._compile import _count_tensors, _tree_json, import_graph

    dynamic_shapes, described = compiler.dynamic_shapes(dynamic, inputs)
    program = compiler.program(state, inputs, dynamic_shapes)
    if program.graph_signature.buffers_to_mutate:
        raise FuserError("the module updates buffers in forward (BatchNorm's "
                         "running statistics, say); fuser.torch does not "
                         "train such modules")
    outputs = _tree_json(program.call_spec.out_spec)
    compiler.spec["outputs"] = outputs
    requires = []
    for i, a in enumerate(compiler.spec["args"]):
        if a["kind"] == "parameter":
            requires.append(bool(state[i].requires_grad))
        elif a["kind"] == "buffer":
            requires.append(False)
        else:
            requires.append(input_grads)
    fw, bw = partitioned_graphs(
        program, requires, compiler.spec["training"].get("recompute",
                                                         "policy"))
    n_out = _count_tensors(outputs)
    plan = plan_graphs(fw, bw, n_out, len(compiler.spec["args"]))
    fold_permutes(bw)  # Views recomputed from the weights.
    for gm in (fw, bw):
        inner_reductions(gm)
    fw_text = import_graph(fw)
    bw_text = import_graph(bw)

    fw_art, fw_info = compiler.compile_text(fw_text)
    fw_names = [a["name"] for a in compiler.spec["args"]]
    fw_art = compiler.named_arguments(fw_art, fw_names)
    fw_results = [f"out{i}" for i in range(n_out)] + [
        n.name for n in list(_output_node(fw.graph).args[0])[n_out:]]
    bw_art, bw_info = compiler.compile_text(bw_text)
    bw_art = compiler.named_arguments(
        bw_art, backward_arg_names(plan, fw_names, fw_results))

    bw_name = f"{name}-backward"
    fw_info["dynamic"] = described
    fw_info["training"] = dict(plan, backward=bw_name,
                               saved=fw_results[n_out:])
    bw_info["dynamic"] = described
    bw_info["backward_of"] = name
    forward = Variant(name, fw_art, compiler.spec["function"], fw_info)
    backward = Variant(bw_name, bw_art, compiler.spec["function"], bw_info)
    # The fx graphs the kernels were compiled from (not saved): the CPU
    # tests run them in place of the kernels to check the plan's gradients.
    forward.graph, backward.graph = fw, bw
    _check_counts(forward, len(fw_results), len(compiler.spec["args"]))
    kernel_grads = {g["index"] for g in plan["grads"]
                    if g is not None and g["from"] == "result"}
    _check_counts(backward, len(kernel_grads), len(plan["backward_args"]))
    return forward, backward


def _check_counts(variant: Variant, results: int, args: int) -> None:
    fn = _module._manifest_function(variant.artifact.manifest_dict,
                                    variant.function_name)
    got_r, got_a = len(fn.get("results", [])), len(fn.get("args", []))
    if (got_r, got_a) != (results, args):
        raise FuserError(
            f"variant {variant.name}: the compiled function takes {got_a} "
            f"arguments and returns {got_r} tensors; the plan has {args} and "
            f"{results}")


class _TrainingCompiler:
    """Compiles forward/backward pairs of one module (the forward-only
    path's _Compiler does the binding, export, cache and compile)."""

    def __init__(self, compiler, input_grads: bool) -> None:
        self.compiler = compiler
        self.input_grads = input_grads

    def pair(self, name, state, inputs, dynamic) -> Tuple[Variant, Variant]:
        return _variant_pair(self.compiler, name, state, inputs, dynamic,
                             self.input_grads)

    def add_pair(self, compiled: "TrainingModule", example_inputs,
                 dynamic, name: Optional[str]) -> Variant:
        """fuser.torch.add_variant for a training module: a forward and
        its backward; returns the forward."""
        if isinstance(example_inputs, torch.Tensor):
            example_inputs = (example_inputs,)
        inputs = self.compiler.tensor_inputs(tuple(example_inputs))
        package = compiled.fuser_package
        base = name or ("dynamic" if dynamic not in (None, False)
                        else "static")
        forward, backward = self.pair(
            self.compiler.unique_name(package, base),
            compiled._fuser_state_tensors(), inputs, dynamic)
        package.variants += [forward, backward]
        compiled.__dict__["_fuser_by_key"].clear()
        return forward

    def on_demand(self, compiled: "TrainingModule",
                  tensors: Sequence[torch.Tensor]) -> Variant:
        n = len(self.compiler.state_names)
        package = compiled.fuser_package
        name = self.compiler.unique_name(package, "static")
        forward, backward = self.pair(name, tensors[:n], tensors[n:], None)
        package.variants += [forward, backward]
        if self.compiler.report:
            print(compiled.fuser_report(), file=sys.stderr)
        return forward


def compile_training(module: torch.nn.Module, example_inputs: Any, *,
                     dynamic=None, precision: str = "fp32",
                     chip: str = "sm_90a", report: bool = False,
                     format: str = "ptx",
                     options: Optional[Mapping[str, Any]] = None,
                     cache=True, fallback: bool = True,
                     input_grads: bool = True,
                     recompute: str = "policy",
                     retry_unfused: Optional[bool] = None) -> "TrainingModule":
    """fuser.torch.compile(..., training=True): see compile() and the module
    docstring. `recompute="all"` saves only the forward's arguments for the
    backward (partitioned_graphs; fuser.torch.elementwise uses it).
    `retry_unfused`: compile a failed fusion again unfused (default: as
    `fallback`)."""
    from ..compiler import find_tools
    from ._compile import _Compiler, finish_compile, make_cache

    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"compile() expects an nn.Module, got "
                        f"{type(module).__name__}")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    find_tools()
    compiler = _Compiler(module, example_inputs, chip=chip,
                         precision=precision, format=format,
                         options=options or {}, cache=make_cache(cache),
                         fallback=fallback, report=report,
                         retry_unfused=retry_unfused)
    compiler.spec["version"] = _module.PACKAGE_VERSION
    if recompute not in ("policy", "all"):
        raise ValueError(f"recompute must be 'policy' or 'all', got "
                         f"{recompute!r}")
    compiler.spec["training"] = {"input_grads": bool(input_grads)}
    if recompute != "policy":
        compiler.spec["training"]["recompute"] = recompute
    package = Package(compiler.spec)
    inputs = [compiler.template[p] for p in compiler.positions]
    compiler.dynamic_shapes(dynamic, inputs)  # A bad spec raises here.
    training = _TrainingCompiler(compiler, input_grads)
    return finish_compile(
        module, compiler, package,
        lambda: training.pair(
            "dynamic" if dynamic not in (None, False) else "static",
            compiler.state_tensors(), inputs, dynamic),
        training.on_demand, fallback=fallback, report=report,
        doing="trains", stacklevel=4)


# -- the runtime side (torch and fuser's runtime only) ------------------------

def _contiguous(ts):
    return [t if t.is_contiguous() else t.contiguous() for t in ts]


def _as_list(results) -> list:
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
        return _as_list(entry(*_contiguous(args)))
    return _as_list(entry(*_contiguous(args), out=tuple(out)))


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
        results = _as_list(forward.entry()(*_contiguous(tensors)))
        return self._fuser_unflatten(
            tuple(results[:forward.info["training"]["outputs"]]))

    def fuser_report(self) -> str:
        text = super().fuser_report()
        return text.replace("fuser: ", "fuser (training): ", 1)

    def _fuser_variant_shapes(self, v: Variant, n_state: int,
                              inputs: Sequence[str]) -> str:
        if "training" in v.info:
            return super()._fuser_variant_shapes(v, n_state, inputs)
        fn = _module._manifest_function(v.artifact.manifest_dict,
                                        v.function_name)
        return "backward of " + v.info.get("backward_of", "?") + "; " + \
            _module.describe_specs(v.arg_specs,
                                   [a["name"] for a in fn["args"]])
