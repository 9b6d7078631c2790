"""The dynamo backend behind torch.compile(model, backend="fuser")
(registered by fuser.torch.dynamo) and fuser.torch.compile's partitioned
modules (_partitioned.py). Nothing here imports torch._dynamo: importing
fuser.torch stays fast.

Each graph dynamo captures is compiled by fuser.torch.compile (at its first
call: torch.export cannot run inside dynamo's compile), the same path
as a module compiled directly: with grad enabled and a tensor requiring grad
(dynamo passes the parameters as graph arguments), compile(training=True),
whose module chooses per call the forward/backward pair that computes
exactly the gradients asked for; otherwise the forward alone. So the
kernels, the partitioner policy and the plan are those of
fuser.torch.compile, and optimizers step on the parameters the kernels
read (dynamo passes the module's own tensors).

The graph is first made a kernel function (_prepare): size arguments
(SymInt placeholders of dynamic shapes) are read off tensor arguments'
shapes, and outputs that are arguments, sizes or constants are returned
around the kernels. Symbolic sizes become fuser's dynamic dims (a shared
symbol, a shared dim).

Graph packages (_conversion/graph_packages.py): a compiled graph is saved
as a fuser.torch package in the cache directory, keyed by the graph, and
loaded by a later process instead of compiled, also on a machine with
fuser's runtime but without torch-mlir or the compiler tools, given that
directory ($FUSER_CACHE_DIR): compile where the compiler is, run where the
GPU is.

Ops fuser leaves to PyTorch (convolutions, random numbers, scans, pooling,
BatchNorm's batch statistics over images: _lowering/graph_split.py) split
the graph: the runs between them compile as graphs of their own, and the
ops run as PyTorch runs them, named in a warning and in COMPILED. A graph
(or run) fuser cannot compile runs eagerly with a warning saying why, and
is recorded in COMPILED. Buffers a graph updates in place (BatchNorm's
running statistics) are written back as
fuser.torch.compile writes them.
"""

from __future__ import annotations

import copy
import functools
import re
import sys
import warnings
from typing import Any, Callable, Dict, List, Mapping, Optional

import torch

from .._native import FuserError
from . import _compiler
from ._conversion import graph_packages
from ._conversion.cache import make_cache
from ._conversion.fuser_compile import short_error
from ._conversion.graph_packages import EmbeddedGraphPackages, GraphPackages
from ._lowering import fx_graph, graph_split

# One record per graph compiled in this process: kind ("training",
# "inference"), kernels (per variant), loaded (from a graph package), key
# (the graph package's), eager (None, or why the graph runs eagerly),
# remarks.
COMPILED: List[Dict[str, Any]] = []


class _Plan:
    """What the kernel function takes (positions of the graph's tensor
    arguments) and how the graph's outputs come from its results."""

    def __init__(self, args: List[int], outputs: List[Optional[tuple]],
                 bare: bool = False):
        self.args = args
        self.outputs = outputs
        # The graph returns its one output bare, not in a tuple (a run of
        # a split graph does, where older PyTorch's split_module has no
        # tuple_return).
        self.bare = bare


def _prepare(gm: torch.fx.GraphModule) -> _Plan:
    """Rewrites `gm` in place into a kernel function: tensor arguments only,
    computed tensor results only (each once)."""
    g = gm.graph
    for node in g.nodes:  # Dynamo's graphs keep their values here.
        if "val" not in node.meta and "example_value" in node.meta:
            node.meta["val"] = node.meta["example_value"]
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
    returned = out.args[0]
    bare = not isinstance(returned, (tuple, list))
    for o in (returned,) if bare else returned:
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
    g.eliminate_dead_code(is_impure_node=_is_impure)
    gm.recompile()
    if hasattr(gm, "real_recompile"):
        # A lazy graph module's forward reads (*args, **kwargs) until its
        # code is made (dynamo's are lazy); the export binds forward's
        # parameters.
        gm.real_recompile()
    return _Plan([i for i, _ in tensors], outputs, bare)


def _is_impure(node: torch.fx.Node) -> bool:
    """FX's impure nodes, and in-place Tensor methods: dynamo's graph
    updates BatchNorm's num_batches_tracked by `buffer.add_(1)`, a result
    nobody reads, which FX's dead-code elimination would drop."""
    if node.op == "call_method" and isinstance(node.target, str) and \
            node.target.endswith("_") and not node.target.startswith("_"):
        return True
    return node.is_impure()


def _dynamic_dims(gm: torch.fx.GraphModule) -> Dict[int, Dict[int, str]]:
    """fuser.torch.compile's `dynamic` for the kernel function's tensor
    arguments: each symbolic size by its symbol's name."""
    dims: Dict[int, Dict[int, str]] = {}
    for i, p in enumerate(fx_graph.placeholders(gm.graph)):
        for d, s in fx_graph.sym_dims(p):
            name = str(s.node.expr)
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                raise FuserError(f"argument '{p.name}' has the size {name}, "
                                 "an expression of dynamic sizes; fuser "
                                 "takes a dynamic dim as one symbol")
            dims.setdefault(i, {})[d] = name
    return dims


def _can_compile() -> bool:
    try:
        import torch_mlir  # noqa: F401
    except ImportError:
        return False
    return graph_packages.tools_or_none() is not None


def _compile_module(work: torch.fx.GraphModule, tensors, training: bool,
                    config: Mapping[str, Any]):
    """fuser.torch.compile of the kernel function, through the graph
    package when there is one. Returns (module, loaded, key)."""
    store = config["graphs"]
    key = graph_packages.graph_key(
        work, tensors, training,
        {k: config[k] for k in ("chip", "precision", "format")},
        config["options"])
    compiled = store.load(key, work) if store is not None else None
    loaded = compiled is not None
    if compiled is None:
        if not _can_compile():
            raise FuserError(
                "compiling this graph needs torch-mlir and fuser's compiler "
                "tools, which this machine lacks, and " +
                (store.missing(key) if store is not None else
                 "no graph cache is in use (cache=False)"))
        examples = tuple(torch.empty(t.shape, dtype=t.dtype, device="meta")
                         .requires_grad_(t.requires_grad and
                                         t.is_floating_point())
                         for t in tensors)
        dynamic = _dynamic_dims(work) or None
        compiled = _compiler.compile(
            work, examples, dynamic=dynamic, training=training,
            chip=config["chip"], precision=config["precision"],
            format=config["format"], options=config["options"],
            cache=config["cache_arg"], fallback=config["fallback"])
        if compiled.fuser_fallback is not None:
            return compiled, False, key
        if store is not None:
            store.save(key, compiled, work.code)
    if not training:
        # The graph the kernels compute (the CPU tests run it instead).
        for v in compiled.fuser_package.variants:
            v.graph, v.graph_mutates_in_place = work, True
    return compiled, loaded, key


def _record(config: Mapping[str, Any], record: Dict[str, Any]) -> None:
    """Keeps `record` in COMPILED and in the caller's own list (the
    "records" option: fuser.torch.compile's partitioned modules)."""
    COMPILED.append(record)
    if config["records"] is not None:
        config["records"].append(record)


def _compile_graph(gm: torch.fx.GraphModule, example_inputs,
                   config: Mapping[str, Any]) -> Callable:
    """The callable dynamo runs for `gm`. The compile happens at its first
    call: torch.export cannot run inside dynamo's own compile, and the
    call's tensors are the example then (dynamo's guards keep grad mode and
    requires_grad flags those of the compile)."""
    training = torch.is_grad_enabled() and any(
        isinstance(t, torch.Tensor) and t.requires_grad
        for t in example_inputs)
    kind = "training" if training else "inference"
    record: Dict[str, Any] = {"kind": kind, "eager": None}
    _record(config, record)
    work = copy.deepcopy(gm)
    state: Dict[str, Any] = {}

    def eager(reason: str) -> Callable:
        record["eager"] = reason
        warnings.warn(f"fuser: the {kind} graph runs eagerly (PyTorch), not "
                      f"through fuser: {reason}", RuntimeWarning,
                      stacklevel=3)
        return gm.forward

    def first_call(args) -> Callable:
        try:
            plan = _prepare(work)
            tensors = [args[i] for i in plan.args]
            compiled, loaded, key = _compile_module(work, tensors,
                                                    training, config)
        except Exception as e:  # noqa: BLE001 - any import or compile failure.
            if not config["fallback"]:
                raise
            return eager(f"{type(e).__name__}: {short_error(e)}")
        if compiled.fuser_fallback is not None:
            return eager(compiled.fuser_fallback)
        record.update(kernels=compiled.fuser_kernels, loaded=loaded, key=key,
                      fused=all(v.fused
                                for v in compiled.fuser_package.variants),
                      remarks=compiled.fuser_remarks, module=compiled)
        if config["report"]:
            print(f"fuser: {kind} graph"
                  f"{' (graph package)' if loaded else ''}\n"
                  f"{compiled.fuser_report()}", file=sys.stderr)
        return functools.partial(_run, compiled, plan)

    def run(*args):
        fn = state.get("fn")
        if fn is None:
            fn = state["fn"] = first_call(args)
        return fn(*args)

    return run


def _run(compiled, plan: _Plan, *args) -> tuple:
    """The compiled module on the graph's tensor arguments; the graph's
    outputs around its results."""
    results = compiled(*[args[i] for i in plan.args])
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
    return outs[0] if plan.bare else tuple(outs)


class _CompiledPart(torch.nn.Module):
    """A run of a split graph that fuser compiles (its _compile_graph
    callable), called by the split graph in its place."""

    def __init__(self, run: Callable):
        super().__init__()
        self._fuser_run = run

    def forward(self, *args):
        return self._fuser_run(*args)


def _compile_split(gm: torch.fx.GraphModule, split: "graph_split.Split",
                   config: Mapping[str, Any]) -> Callable:
    """The split graph with fuser's runs compiled; the ops left to PyTorch
    said once in a warning and recorded in COMPILED. Where no run is
    fuser's, dynamo's own graph `gm` (the split's calls would only cost)."""
    reasons = [r for _, why in split.parts if why for r in why]
    ours = [name for name, why in split.parts if why is None]
    _record(config, {"kind": "split", "parts": len(split.parts),
                     "fuser_parts": len(ours), "pytorch": reasons})
    what = "; ".join(reasons)
    if not ours:
        warnings.warn(f"fuser: the graph runs eagerly (PyTorch): {what}",
                      RuntimeWarning, stacklevel=3)
        return gm.forward
    warnings.warn(f"fuser: these ops run in PyTorch, the rest of the graph "
                  f"({len(ours)} part{'s' if len(ours) > 1 else ''}) "
                  f"through fuser: {what}", RuntimeWarning, stacklevel=3)
    for name in ours:
        part = getattr(split.module, name)
        examples = [p.meta.get("example_value", p.meta.get("val"))
                    for p in fx_graph.placeholders(part.graph)]
        setattr(split.module, name,
                _CompiledPart(_compile_graph(part, examples, config)))
    return split.module.forward


_DEFAULTS = {"chip": "sm_90a", "precision": "fp32", "format": "ptx",
             "cache": True, "fallback": True, "report": False,
             "records": None, "packages": None}


def backend(gm: torch.fx.GraphModule, example_inputs,
            options: Optional[Mapping[str, Any]] = None, **kwargs):
    """The "fuser" dynamo backend. torch.compile's `options`: chip,
    precision, format, cache (True, a directory, or False: the compile
    cache and the graph packages), fallback (False: a graph fuser cannot
    compile raises), report (print each graph's kernels and remarks),
    records (a list that gets each graph's COMPILED record too), packages
    (graph packages by key, as texts: a ModelNew file's; they replace the
    cache's), and any other pipeline option (e.g. {"fp32-kernel":
    "ffma"})."""
    given = dict(options or {}, **kwargs)
    config = {k: given.pop(k, v) for k, v in _DEFAULTS.items()}
    cache = make_cache(config["cache"])
    config["cache_arg"] = config["cache"] if cache is not None else False
    if config["packages"] is not None:
        config["graphs"] = EmbeddedGraphPackages(config["packages"])
    else:
        config["graphs"] = (GraphPackages(cache.root / "graphs")
                            if cache is not None else None)
    config["options"] = given
    split = graph_split.split(gm)
    if split is not None:
        return _compile_split(gm, split, config)
    return _compile_graph(gm, example_inputs, config)
