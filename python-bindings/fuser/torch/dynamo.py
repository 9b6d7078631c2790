"""torch.compile(model, backend="fuser"): a dynamo backend (issue 14, item 4;
the minimal working version).

    import fuser.torch.dynamo            # registers "fuser" (fuser.torch does
                                         # too when torch._dynamo is loaded)
    compiled = torch.compile(model, backend="fuser",
                             options={"precision": "fp32", "cache": True})

Each graph dynamo captures goes through AOTAutograd (the same decomposition
table and partitioner policy as fuser.torch.compile(training=True): values
after a reduction and i1 masks are recomputed in the backward, not saved),
so training works: the forward, backward and inference graphs are each
imported through torch-mlir's FX importer and compiled by fuser
(_conversion/fuser_compile.py: the on-disk cache keyed by the IR, the
options, fuser's version and the tools, with atomic writes, so a second
process compiles nothing; fusion failures retried unfused). A graph fuser cannot
compile runs eagerly (the whole graph) with a warning saying why, and is
recorded in COMPILED.

Around each kernel function, what a kernel cannot return is handled in
Python: an argument returned unchanged (AOTAutograd saves weights and inputs
that way), a size (dynamic shapes), None gradients; size arguments (SymInt
placeholders) are read off tensor arguments' shapes instead.

Where things must be installed: compiling needs torch-mlir and fuser's
compiler tools (this machine); running needs the GPU and fuser's runtime.
A GPU host without the compiler runs models compiled ahead of time as
packages (fuser.torch.compile(..., training=True) + fuser.torch.save, then
fuser.torch.load there), not through torch.compile: dynamo's graphs are
only known once the model runs.

Not yet: partial graphs (fuser's part compiled, the rest eager), a cache
keyed by the fx graph (the torch-mlir import runs every time; fuser's
compile is what the cache skips), buffer mutation (BatchNorm's statistics).
"""

from __future__ import annotations

import copy
import functools
import sys
import warnings
from typing import Any, Dict, List, Mapping, Optional

import torch
from torch._dynamo.backends.common import aot_autograd
from torch._dynamo.backends.registry import register_backend
from torch._functorch.aot_autograd import make_boxed_func

from .._native import FuserError
from ..loader import load as _load_artifact
from ._conversion.cache import make_cache
from ._conversion.fuser_compile import compile_ir, short_error
from ._export.mlir import import_graph
from ._lowering import fx_graph
from ._lowering.masks import read_masks_off_outputs
from ._lowering.recompute import recompute_after_reductions
from ._lowering.rewrites import fold_permutes, inner_reductions

# One record per graph compiled in this process: kind ("forward",
# "backward", "inference"), kernels, cache_hit, fused, eager (None, or why
# the graph runs eagerly), remarks.
COMPILED: List[Dict[str, Any]] = []


def _mark_joint(joint: torch.fx.GraphModule, num_fwd_outputs: int) -> None:
    """The partitioner policy: recompute values after reductions (as
    fuser.torch.compile(training=True) does), and i1 masks, which fuser's
    kernels do not return; leaky_relu's mask y > 0 is read off the
    activation (same sign), so the forward's output is what is saved."""
    from torch.utils.checkpoint import CheckpointPolicy

    read_masks_off_outputs(joint)
    recompute_after_reductions(joint, num_fwd_outputs)
    for node in joint.graph.nodes:
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor) and val.dtype == torch.bool and \
                node.op == "call_function":
            node.meta["recompute"] = CheckpointPolicy.MUST_RECOMPUTE


def _partition(joint, joint_inputs, **kwargs):
    from torch._functorch.partitioners import \
        min_cut_rematerialization_partition

    _mark_joint(joint, kwargs.get("num_fwd_outputs", 0))
    return min_cut_rematerialization_partition(joint, joint_inputs, **kwargs)


class _Plan:
    """What the kernel function takes (positions of the graph's tensor
    arguments) and how the graph's outputs come from its results."""

    def __init__(self, args: List[int], outputs: List[Optional[tuple]]):
        self.args = args
        self.outputs = outputs


def _prepare(gm: torch.fx.GraphModule) -> _Plan:
    """Rewrites `gm` in place into a kernel function: tensor arguments only,
    computed tensor results only (each once)."""
    g = gm.graph
    placeholders = fx_graph.placeholders(g)
    tensors = [(i, p) for i, p in enumerate(placeholders)
               if isinstance(p.meta.get("val"), torch.Tensor)]

    def size_of(expr):
        for i, p in tensors:
            for d, s in fx_graph.sym_dims(p):
                if s.node.expr == expr:
                    return i, p, d, s
        return None

    first = next((n for n in g.nodes if n.op != "placeholder"), None)
    for i, p in enumerate(placeholders):
        val = p.meta.get("val")
        if isinstance(val, torch.Tensor):
            continue
        if p.users:
            if not isinstance(val, torch.SymInt):
                raise FuserError(f"argument '{p.name}' is a "
                                 f"{type(val).__name__}, not a tensor")
            found = size_of(val.node.expr)
            if found is None:
                raise FuserError(f"the size {val} is no tensor argument's")
            _, q, d, s = found
            with g.inserting_before(first):
                size = g.call_function(torch.ops.aten.sym_size.int, (q, d))
            size.meta["val"] = s
            p.replace_all_uses_with(size)
        g.erase_node(p)
    position = {p: i for i, p in tensors}
    out = fx_graph.output_node(g)
    results: List[torch.fx.Node] = []
    outputs: List[Optional[tuple]] = []
    for o in out.args[0]:
        if o is None:
            outputs.append(None)
        elif not isinstance(o, torch.fx.Node):
            outputs.append(("const", o))
        elif o in position:
            outputs.append(("arg", position[o]))
        elif isinstance(o.meta.get("val"), torch.SymInt):
            found = size_of(o.meta["val"].node.expr)
            if found is None:
                raise FuserError(f"the graph returns the size "
                                 f"{o.meta['val']}, which no tensor "
                                 "argument has")
            outputs.append(("size", found[0], found[2]))
        else:
            val = o.meta.get("val")
            if not isinstance(val, torch.Tensor):
                raise FuserError(f"the graph returns a {type(val).__name__}")
            if val.dtype == torch.bool:
                raise FuserError("the graph returns an i1 tensor (a mask), "
                                 "which fuser's kernels do not")
            if o not in results:
                results.append(o)
            outputs.append(("result", results.index(o)))
    if not results:
        raise FuserError("the graph computes nothing (it returns its "
                         "arguments)")
    out.args = (tuple(results),)
    g.eliminate_dead_code()
    gm.recompile()
    return _Plan([i for i, _ in tensors], outputs)


def _kernel_function(art, graph: torch.fx.GraphModule):
    """The callable running a compiled graph's kernels (fuser's runtime);
    `graph` is the fx graph they were compiled from (CPU tests run it
    instead)."""
    return _load_artifact(art)["main"]


def _compile_graph(gm: torch.fx.GraphModule, example_inputs, *, kind: str,
                   config: Mapping[str, Any]):
    record: Dict[str, Any] = {"kind": kind, "eager": None}
    COMPILED.append(record)
    try:
        work = copy.deepcopy(gm)
        fold_permutes(work)
        inner_reductions(work)
        plan = _prepare(work)
        text = import_graph(work)
        art, info = compile_ir(text, chip=config["chip"],
                               precision=config["precision"],
                               format=config["format"],
                               options=config["options"],
                               cache=config["cache"],
                               retry_unfused=config["fallback"])
    except Exception as e:  # noqa: BLE001 - any import or compile failure.
        if not config["fallback"]:
            raise
        reason = f"{type(e).__name__}: {short_error(e)}"
        record["eager"] = reason
        warnings.warn(f"fuser: the {kind} graph runs eagerly (PyTorch), not "
                      f"through fuser: {reason}", RuntimeWarning,
                      stacklevel=2)
        return make_boxed_func(gm.forward)
    record.update(kernels=art.kernel_names, cache_hit=info["cache_hit"],
                  fused=info["fused"], remarks=art.remarks,
                  notes=info["notes"])
    if config["report"]:
        print(f"fuser: {kind} graph: {len(art.kernel_names)} kernel(s) "
              f"({', '.join(art.kernel_names)})"
              f"{'; cache hit' if info['cache_hit'] else ''}\n"
              f"{art.remarks.rstrip()}", file=sys.stderr)
    entry = []

    def run(args):
        if not entry:
            entry.append(_kernel_function(art, work))
        tensors = [args[i] for i in plan.args]
        tensors = [t if t.is_contiguous() else t.contiguous()
                   for t in tensors]
        results = entry[0](*tensors)
        if not isinstance(results, (tuple, list)):
            results = [results]
        outs = []
        for o in plan.outputs:
            if o is None:
                outs.append(None)
            elif o[0] == "result":
                outs.append(results[o[1]])
            elif o[0] == "arg":
                outs.append(args[o[1]])
            elif o[0] == "size":
                outs.append(args[o[1]].shape[o[2]])
            else:
                outs.append(o[1])
        return outs

    run._boxed_call = True
    return run


_DEFAULTS = {"chip": "sm_90a", "precision": "fp32", "format": "ptx",
             "cache": True, "fallback": True, "report": False}


def backend(gm: torch.fx.GraphModule, example_inputs,
            options: Optional[Mapping[str, Any]] = None, **kwargs):
    """The "fuser" dynamo backend. torch.compile's `options`: chip,
    precision, format, cache (True, a directory, or False), fallback
    (False: a graph fuser cannot compile raises), report (print each
    graph's kernels and remarks), and any other pipeline option (e.g.
    {"fp32-kernel": "ffma"})."""
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    given = dict(options or {}, **kwargs)
    config = {k: given.pop(k, v) for k, v in _DEFAULTS.items()}
    config["cache"] = make_cache(config["cache"])
    config["options"] = given
    compilers = {kind: functools.partial(_compile_graph, kind=kind,
                                         config=config)
                 for kind in ("forward", "backward", "inference")}
    return aot_autograd(
        fw_compiler=compilers["forward"], bw_compiler=compilers["backward"],
        inference_compiler=compilers["inference"], partition_fn=_partition,
        decompositions=get_decomposition_table(),
        keep_inference_input_mutations=False)(gm, example_inputs)


def register() -> None:
    """Registers `backend` as torch.compile's "fuser" (once)."""
    from torch._dynamo.backends import registry

    if "fuser" not in registry._COMPILER_FNS:
        register_backend(name="fuser")(backend)


register()
