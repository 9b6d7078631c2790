"""Which ops of a dynamo graph stay in PyTorch, and the graph split around
them (fuser.torch.dynamo): the runs of other ops become graphs fuser
compiles; convolutions, random numbers, scans, pooling and BatchNorm's
batch statistics over images run as PyTorch runs them. For fuser.torch.compile, the same question on an exported
program (`exported_pytorch_ops`): convolutions and random numbers there.

An op stays in PyTorch for one of the reasons below, named in a warning
and in dynamo.COMPILED, so that a model with a convolution, a dropout, a
cumsum or a pooling layer keeps fuser's kernels for the rest instead of
running wholly eagerly (or, for a convolution, slowly).
"""

from __future__ import annotations

import operator
from typing import Dict, List, Optional, Tuple

import torch
from torch.fx.passes.split_module import split_module

from ..._native import FuserError
from .fx_graph import user_frame

_RANDOM = "its random numbers come from PyTorch's generator"
# fuser's compiler lowers a convolution only through its generic fallback,
# orders of magnitude slower than cuDNN (it says so in a remark too).
_CONV = "fuser has no convolution kernel yet (cuDNN's is far faster)"
_CONVS = ("conv1d", "conv2d", "conv3d", "conv_transpose1d",
          "conv_transpose2d", "conv_transpose3d", "conv_tbc", "convolution",
          "_convolution")
_RANDOMS = ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
            "feature_alpha_dropout", "feature_dropout", "native_dropout",
            "dropout_", "alpha_dropout_", "feature_dropout_",
            "feature_alpha_dropout_",
            "rand", "randn", "rand_like", "randn_like", "randint",
            "randint_like", "randperm", "bernoulli", "bernoulli_",
            "multinomial", "normal", "normal_", "poisson", "uniform_",
            "random_", "exponential_", "geometric_", "log_normal_", "cauchy_")
# fuser.torch.compile compiles cumsum and cumprod (scan kernels); the
# dynamo backend's split graphs have not been run with them on a GPU yet.
_SCAN = "the dynamo backend leaves scans to PyTorch for now"
# fuser.torch.compile runs avg and max pooling forward through fuser's
# reduction kernels; a dynamo graph may need their backward or indices.
_POOL = "fuser's pooling kernels have no backward or indices yet"

# BatchNorm with batch statistics over images (training mode, input of rank
# 3 or more): fuser's kernels read the input in several passes (statistics,
# then the normalisation; its backward likewise), cuDNN's fused kernels once
# or twice, and took 0.66x eager's training step on timm's ResNet block.
_BATCH_NORM = ("BatchNorm with batch statistics over images: cuDNN's fused "
               "kernels are faster than fuser's passes")

# torch and torch.nn.functional functions (by name) and Tensor methods that
# stay in PyTorch.
_REASONS: Dict[str, str] = {
    **{name: _RANDOM for name in _RANDOMS},
    **{name: _CONV for name in _CONVS},
    **{name: _SCAN for name in (
        "cumsum", "cumsum_", "cumprod", "cumprod_", "cummax", "cummin",
        "logcumsumexp")},
}
_REASONS.update({name.format(n): _POOL for n in (1, 2, 3) for name in (
    "avg_pool{}d", "max_pool{}d", "_max_pool{}d", "max_pool{}d_with_indices",
    "adaptive_avg_pool{}d", "adaptive_max_pool{}d", "_adaptive_max_pool{}d",
    "adaptive_max_pool{}d_with_indices", "lp_pool{}d",
    "fractional_max_pool{}d", "fractional_max_pool{}d_with_indices")})

# The dropouts whose `training` argument (position 2) may turn them off, as
# p = 0 (position 1) does.
_DROPOUTS = ("dropout", "dropout1d", "dropout2d", "dropout3d",
             "alpha_dropout", "feature_alpha_dropout", "feature_dropout",
             "native_dropout", "dropout_", "alpha_dropout_",
             "feature_dropout_", "feature_alpha_dropout_")

# The aten ops of an exported program that fuser.torch.compile leaves to
# PyTorch: it compiles scans and pooling forward itself.
_EXPORT_REASONS: Dict[str, str] = {
    **{name: _RANDOM for name in _RANDOMS},
    **{name: _CONV for name in _CONVS},
}

# Ops that only view or pick: a run of nothing else is not worth a kernel.
_VIEWS = {operator.getitem, getattr, torch.reshape, torch.flatten,
          torch.transpose, torch.permute, torch.squeeze, torch.unsqueeze,
          torch.t, torch.chunk, torch.split}
_VIEW_METHODS = {"view", "reshape", "flatten", "transpose", "permute",
                 "squeeze", "unsqueeze", "t", "contiguous", "expand",
                 "expand_as", "chunk", "split", "size", "dim", "view_as"}


# Ops computing one value per element from their inputs'. In a split graph
# a run of one or two of them stays in PyTorch: fusing them
# saves at most one pass over memory, PyTorch's calls cost less on the host
# than a call of fuser's (and, in training, its autograd function's), and
# such a run often updates its input in place (ResNet's `out += shortcut`
# after a BatchNorm left to PyTorch), which fuser's training export takes
# no backward of.
_ELEMENTWISE = {"relu", "relu_", "gelu", "silu", "silu_", "sigmoid", "tanh",
                "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "elu",
                "add", "add_", "iadd", "sub", "isub", "mul", "mul_", "imul",
                "truediv", "div", "neg", "abs", "exp"}

# Modules called as modules (leaf modules of a trace) that stay in PyTorch.
_MODULE_REASONS = (
    (torch.nn.modules.dropout._DropoutNd, _RANDOM),
    (torch.nn.modules.conv._ConvNd, _CONV),
    (torch.nn.modules.pooling._AvgPoolNd, _POOL),
    (torch.nn.modules.pooling._MaxPoolNd, _POOL),
    (torch.nn.modules.pooling._AdaptiveAvgPoolNd, _POOL),
    (torch.nn.modules.pooling._AdaptiveMaxPoolNd, _POOL),
    (torch.nn.modules.pooling._LPPoolNd, _POOL),
    (torch.nn.FractionalMaxPool2d, _POOL),
    (torch.nn.FractionalMaxPool3d, _POOL),
)


def _name(node: torch.fx.Node,
          root: Optional[torch.nn.Module] = None) -> Optional[str]:
    if node.op == "call_method":
        return node.target
    if node.op == "call_function":
        return getattr(node.target, "__name__", None)
    if node.op == "call_module" and root is not None:
        return type(root.get_submodule(node.target)).__name__
    return None


def pytorch_reason(node: torch.fx.Node,
                   root: Optional[torch.nn.Module] = None) -> Optional[str]:
    """Why `node` runs in PyTorch, or None for an op fuser takes. `root`,
    the graph's module, resolves call_module nodes."""
    if node.op == "call_module" and root is not None:
        module = root.get_submodule(node.target)
        if isinstance(module, (torch.nn.BatchNorm2d, torch.nn.BatchNorm3d)) \
                and module.training:
            return _BATCH_NORM
        for cls, reason in _MODULE_REASONS:
            if isinstance(module, cls):
                if cls is torch.nn.modules.dropout._DropoutNd and \
                        (not module.training or module.p == 0):
                    return None  # The identity: fuser takes it.
                return reason
        return None
    name = _name(node)
    if name == "batch_norm" and node.op == "call_function" and \
            _batch_statistics_over_images(node):
        return _BATCH_NORM
    reason = _REASONS.get(name) if name else None
    if reason is None:
        return None
    if name in _DROPOUTS and node.op == "call_function" and \
            _dropout_off(node):
        return None  # The identity: fuser takes it.
    return reason


def _batch_statistics_over_images(node: torch.fx.Node) -> bool:
    """A batch_norm call (F.batch_norm's arguments: input, running_mean,
    running_var, weight, bias, training, ...) in training mode on an input
    of rank 3 or more."""
    training = (node.args[5] if len(node.args) > 5
                else node.kwargs.get("training", False))
    source = node.args[0] if node.args else node.kwargs.get("input")
    val = source.meta.get("example_value", source.meta.get("val")) \
        if isinstance(source, torch.fx.Node) else None
    return training is True and isinstance(val, torch.Tensor) and \
        val.dim() >= 3


def _dropout_off(node: torch.fx.Node) -> bool:
    """A dropout call whose `training` argument (position 2) is False, or
    whose p (position 1) is 0 (configs of real models often say 0.0): the
    identity, which fuser takes."""
    training = (node.args[2] if len(node.args) > 2
                else node.kwargs.get("training", node.kwargs.get("train",
                                                                 True)))
    p = node.args[1] if len(node.args) > 1 else node.kwargs.get("p", 0.5)
    return training is False or (isinstance(p, (int, float)) and p == 0)


def _user_line(node: torch.fx.Node) -> Tuple[str, int]:
    """(file, line) of the user's code that made `node`, or ("", 0)."""
    frame = user_frame(node)
    return (frame[0], frame[1]) if frame else ("", 0)


class LeftToPyTorch(FuserError):
    """An exported program has ops fuser.torch.compile leaves to PyTorch:
    `ops` lists (aten op name, reason, file, line) of each."""

    def __init__(self, ops: List[Tuple[str, str, str, int]]) -> None:
        self.ops = ops
        said = "; ".join(f"{name}: {why}" + (f" ({file}:{line})" if file
                                              else "")
                         for name, why, file, line in ops)
        super().__init__(f"these ops stay in PyTorch: {said}")


def exported_pytorch_ops(gm: torch.fx.GraphModule
                         ) -> List[Tuple[str, str, str, int]]:
    """The ops of torch.export's graph `gm` that fuser.torch.compile leaves
    to PyTorch, as LeftToPyTorch lists them (empty: fuser takes it all)."""
    found = []
    # Subgraphs too (torch.no_grad and autocast regions, cond's branches).
    nodes = [n for m in gm.modules() if isinstance(m, torch.fx.GraphModule)
             for n in m.graph.nodes]
    for node in nodes:
        if node.op != "call_function":
            continue
        name = getattr(node.target, "_opname", None) or _name(node)
        reason = _EXPORT_REASONS.get(name) if name else None
        if reason is None or (name in _DROPOUTS and _dropout_off(node)):
            continue
        found.append((name, reason, *_user_line(node)))
    return found


def _is_view(node: torch.fx.Node) -> bool:
    if node.op == "call_method":
        return node.target in _VIEW_METHODS
    return node.op == "call_function" and node.target in _VIEWS


def _where(node: torch.fx.Node) -> str:
    """The user's line of `node`, from dynamo's stack trace."""
    file, line = _user_line(node)
    return f" ({file}:{line})" if file else ""


class Split:
    """A graph split into runs: `module` calls submodules `parts` in
    order; each part is (name, None) for a run fuser compiles or (name,
    reasons) for one that stays in PyTorch. A run with one output returns
    it bare (split_module's tuple_return is newer than some PyTorch fuser
    runs on)."""

    def __init__(self, module: torch.fx.GraphModule,
                 parts: List[Tuple[str, Optional[List[str]]]]):
        self.module = module
        self.parts = parts


def split(gm: torch.fx.GraphModule) -> Optional[Split]:
    """None when every op is fuser's (the graph compiles whole); else the
    graph split at the ops that stay in PyTorch. A run of views alone, or
    of one or two elementwise ops, stays in PyTorch too, with no reason
    given."""
    ops = [n for n in gm.graph.nodes
           if n.op in ("call_function", "call_method", "call_module")]
    reasons = {n: pytorch_reason(n, gm) for n in ops}
    if not any(reasons.values()):
        return None
    # Runs: consecutive ops of one kind (fuser's or PyTorch's) share an id.
    partition: Dict[torch.fx.Node, int] = {}
    current, kind = -1, None
    for n in ops:
        mine = reasons[n] is None
        if mine != kind:
            current, kind = current + 1, mine
        partition[n] = current
    fuser_runs = {partition[n] for n in ops if reasons[n] is None}
    computes: Dict[int, List[torch.fx.Node]] = {}
    for n in ops:
        if reasons[n] is None and not _is_view(n):
            computes.setdefault(partition[n], []).append(n)
    # A run of views alone, or of one or two elementwise ops, stays in
    # PyTorch.
    worth = {i for i, nodes in computes.items()
             if len(nodes) > 2 or
             any(_name(n, gm) not in _ELEMENTWISE for n in nodes)}
    module = split_module(gm, None, lambda n: partition[n],
                          keep_original_order=True)
    parts: List[Tuple[str, Optional[List[str]]]] = []
    for i in sorted(set(partition.values())):
        name = f"submod_{i}"
        if not hasattr(module, name):
            continue
        if i in fuser_runs and i in worth:
            parts.append((name, None))
        else:
            why = [f"{_name(n, gm)}: {reasons[n]}{_where(n)}" for n in ops
                   if partition[n] == i and reasons[n] is not None]
            parts.append((name, why))
    return Split(module, parts)
