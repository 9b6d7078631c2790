"""leaky_relu's backward mask (`y > 0`) read off a value computed anyway:
the last activation of y that keeps its sign (the module's output,
usually), so the forward saves nothing more for it."""

from __future__ import annotations

from typing import Optional

import torch


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


def _widened(y: torch.fx.Node) -> Optional[torch.fx.Node]:
    """The value y converts exactly to a wider float type (bf16 or f16 to
    f32, f32 to f64: the same value, the same sign), or None. Under
    autocast leaky_relu's backward compares the f32 copy of its bf16
    input."""
    if y.target not in (torch.ops.prims.convert_element_type.default,
                        torch.ops.aten._to_copy.default):
        return None
    x = y.args[0] if y.args else None
    if not isinstance(x, torch.fx.Node):
        return None
    a, b = x.meta.get("val"), y.meta.get("val")
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        return None
    src, dst = a.dtype, b.dtype
    exact = {(torch.bfloat16, torch.float32), (torch.float16, torch.float32),
             (torch.bfloat16, torch.float64), (torch.float16, torch.float64),
             (torch.float32, torch.float64)}
    return x if (src, dst) in exact else None


def sign_source(node: torch.fx.Node) -> Optional[torch.fx.Node]:
    """For `gt(y, 0)` (leaky_relu's backward mask), the last of a chain of
    y's sign-keeping users in the same graph (W2: leaky_relu(y); W3:
    leaky_relu(y) + itself, the output), or None; y may be an exact
    widening of the value the chain starts from."""
    if node.target is not torch.ops.aten.gt.Scalar or node.args[1] != 0:
        return None
    y = node.args[0]
    if not isinstance(y, torch.fx.Node):
        return None
    while (x := _widened(y)) is not None:
        y = x
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
        source = sign_source(node)
        if source is not None:
            node.args = (source,) + tuple(node.args[1:])
