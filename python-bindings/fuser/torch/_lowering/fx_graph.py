"""Small helpers over torch.fx graphs that the rewrites, the partitioner
policies and the plan share."""

from __future__ import annotations

import copy
import os
import re
import weakref
from typing import List, Optional, Sequence, Tuple

import torch


# Ops that only view their first argument: a saved value made of these from
# a forward argument is recomputed in the backward, not a kernel result.
_VIEW_OPS = None


def view_ops():
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


def placeholders(graph: torch.fx.Graph) -> List[torch.fx.Node]:
    return list(graph.find_nodes(op="placeholder"))


def output_node(graph: torch.fx.Graph) -> torch.fx.Node:
    return next(iter(graph.find_nodes(op="output")))


def is_tensor(node: torch.fx.Node) -> bool:
    return isinstance(node.meta.get("val"), torch.Tensor)


def sym_dims(node: torch.fx.Node):
    """(dim, size) pairs of a tensor placeholder's symbolic sizes."""
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        return []
    return [(d, s) for d, s in enumerate(val.shape)
            if isinstance(s, torch.SymInt)]


def fake_call(graph: torch.fx.Graph, target, args: tuple) -> torch.fx.Node:
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


def run_in_place_of_kernels(gm: torch.fx.GraphModule, *tensors) -> tuple:
    """The fx graph a variant's kernels were compiled from, run on
    `tensors` in their place (the CPU tests, and builds on machines where
    no kernel launches). Its views run as reshapes: fuser computes values,
    so a rewritten graph may view a tensor whose strides eager's view
    cannot take (a permute's)."""
    code, runnable = _RUNNABLE.get(gm, (None, None))
    if code != gm.code:
        runnable = copy.deepcopy(gm)
        for node in runnable.graph.nodes:
            if node.target in (torch.ops.aten.view.default,
                               torch.ops.aten._unsafe_view.default):
                node.target = torch.ops.aten.reshape.default
        runnable.recompile()
        _RUNNABLE[gm] = (gm.code, runnable)
    return tuple(runnable(*tensors))


# run_in_place_of_kernels' runnable copies, by graph (and its code then).
_RUNNABLE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
# fuser's own directory (this file is fuser/torch/_lowering/fx_graph.py):
# frames there (the export's functional wrapper) are not the user's, nor
# are torch's (nn.Conv2d.forward calling F.conv2d).
FUSER_DIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
NOT_USER_DIRS = (os.path.join(os.path.dirname(torch.__file__), ""),
                 os.path.join(FUSER_DIR, ""))


def user_frame(node: torch.fx.Node, skipped: Sequence[str] = NOT_USER_DIRS,
               generated: bool = False) -> Optional[Tuple[str, int, str]]:
    """(file, line, function) of the innermost frame of `node`'s stack
    trace in the user's code: not under `skipped` directories, and not
    generated (<eval_with_key>) unless `generated`; None without one."""
    frames = _FRAME.findall(node.meta.get("stack_trace") or "")
    user = [f for f in frames if not f[0].startswith(tuple(skipped)) and
            (generated or not f[0].startswith("<"))]
    if not user:
        return None
    file, line, fn = user[-1]
    return file, int(line), fn
