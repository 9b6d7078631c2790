"""torch.compile(model, backend="fuser") on graphs with ops fuser leaves to
PyTorch (fuser/torch/_lowering/graph_split.py): dropout in training mode,
cumsum, pooling. The graph is split; the runs between those ops compile through
fuser (their fx graphs run in place of the kernels here, as in
test_torch_training_dynamo.py); the ops run in PyTorch, with PyTorch's
random numbers. Checked against eager, gradients included.

Skipped without torch, torch-mlir or the compiler tools."""

import copy
import operator

import pytest

from torch_frontend_util import require_front_end

torch = require_front_end()

import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import fuser.torch.dynamo as fd  # noqa: E402
from fuser.torch._lowering import graph_split  # noqa: E402
from test_torch_training_dynamo import RAN, graphs_for_kernels  # noqa: E402,F401


class DropoutMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(40, 32)
        self.drop = nn.Dropout(0.3)
        self.fc2 = nn.Linear(32, 24)

    def forward(self, x):
        return self.fc2(F.relu(self.drop(self.fc1(x))))


class CumsumLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(40, 32)

    def forward(self, x):
        return torch.tanh(F.gelu(torch.cumsum(self.fc(x), dim=1)) * 0.5)


class PoolLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(40, 32)

    def forward(self, x):
        y = F.avg_pool1d(torch.tanh(self.fc(x)).unsqueeze(1), 2)
        return torch.sigmoid(y.squeeze(1) + 1.0) * 2.0


def split_record():
    records = [r for r in fd.COMPILED if r["kind"] == "split"]
    assert len(records) == 1, fd.COMPILED
    return records[0]


def test_dropout_in_training_splits_and_matches_eager(graphs_for_kernels):
    model = DropoutMLP()
    ref = copy.deepcopy(model)
    c = torch.compile(model, backend="fuser", options={"cache": False})
    x = torch.randn(7, 40)
    torch.manual_seed(3)
    with pytest.warns(RuntimeWarning, match="dropout: its random numbers "
                      "come from PyTorch's generator"):
        y = c(x)
    torch.manual_seed(3)  # The same draws: PyTorch's dropout both times.
    y2 = ref(x)
    torch.testing.assert_close(y, y2, atol=1e-5, rtol=1e-5)
    y.square().sum().backward()
    y2.square().sum().backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, atol=1e-4, rtol=1e-4)
    record = split_record()
    assert record["fuser_parts"] == 2 and len(record["pytorch"]) == 1
    assert "test_torch_dynamo_split.py" in record["pytorch"][0]
    parts = [r for r in fd.COMPILED if r["kind"] == "training"]
    assert len(parts) == 2 and all(r["eager"] is None for r in parts)
    assert len(RAN) >= 4  # Both parts' forward and backward variants.


def test_dropout_in_eval_is_not_split(graphs_for_kernels):
    model = DropoutMLP().eval()
    c = torch.compile(model, backend="fuser", options={"cache": False})
    x = torch.randn(7, 40)
    with torch.no_grad():
        torch.testing.assert_close(c(x), model(x), atol=1e-5, rtol=1e-5)
    # Compiled, not eager: without the cache too (dynamo's graph modules
    # are lazy; their forward's parameters are read after the code is made).
    assert [(r["kind"], r["eager"]) for r in fd.COMPILED] == [("inference", None)]


@pytest.mark.parametrize("cls, op", [(CumsumLinear, "cumsum: the dynamo "
                                      "backend leaves scans to PyTorch"),
                                     (PoolLinear, "avg_pool1d: fuser's pooling "
                                      "kernels have no backward")])
def test_scans_and_pooling_run_in_pytorch(graphs_for_kernels, cls, op):
    model = cls()
    c = torch.compile(model, backend="fuser", options={"cache": False})
    x = torch.randn(7, 40)
    with pytest.warns(RuntimeWarning, match=op):
        with torch.no_grad():
            y = c(x)
    with torch.no_grad():
        torch.testing.assert_close(y, model(x), atol=1e-5, rtol=1e-5)
    record = split_record()
    assert record["fuser_parts"] == 2, record
    assert [(r["kind"], r["eager"]) for r in fd.COMPILED
            if r["kind"] != "split"] == [("inference", None)] * 2


def test_runs_of_views_alone_stay_in_pytorch():
    def f(x):
        y = torch.cumsum(x, 0)
        return y.view(-1)[1:], torch.relu(y).sum(0)

    gm = torch.fx.symbolic_trace(f)
    split = graph_split.split(gm)
    kinds = [why is None for _, why in split.parts]
    # cumsum (PyTorch), then view, getitem, relu and sum: one run, fuser's.
    assert kinds == [False, True]
    x = torch.randn(5, 3)
    for got, want in zip(split.module(x), f(x)):
        torch.testing.assert_close(got, want)


class ConvBnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def test_batch_statistics_and_a_lone_relu_stay_in_pytorch(graphs_for_kernels):
    """In training mode BatchNorm's batch statistics over images stay in
    PyTorch (cuDNN's fused kernels), and so does the ReLU left alone
    between it and the output: the graph runs as PyTorch runs it. In eval
    mode the BatchNorm with its running statistics and the ReLU are one
    fuser part. Two elementwise ops alone stay in PyTorch; three fuse."""
    split = graph_split.split(torch.fx.symbolic_trace(
        lambda x: torch.cumsum(torch.cumsum(x, 0).relu() + 1, 0)))
    assert [why is None for _, why in split.parts] == [False, False, False]
    split = graph_split.split(torch.fx.symbolic_trace(
        lambda x: torch.cumsum(x, 0).relu().add(1).mul(2)))
    assert [why is None for _, why in split.parts] == [False, True]
    model = ConvBnRelu()
    ref = copy.deepcopy(model)
    c = torch.compile(model, backend="fuser", options={"cache": False})
    x = torch.randn(2, 3, 8, 8)
    with pytest.warns(RuntimeWarning, match="batch_norm: BatchNorm with "
                      "batch statistics over images"):
        y = c(x)
    torch.testing.assert_close(y, ref(x))
    torch.testing.assert_close(model.bn.running_var, ref.bn.running_var)
    assert split_record()["fuser_parts"] == 0
    torch._dynamo.reset()
    fd.COMPILED.clear()
    model.eval()
    c = torch.compile(model, backend="fuser", options={"cache": False})
    with torch.no_grad():
        torch.testing.assert_close(c(x), model(x), atol=1e-5, rtol=1e-5)
    assert split_record()["fuser_parts"] == 1


def test_views_only_run_is_not_compiled():
    def f(x):
        return torch.cumsum(x, 0).view(-1)

    split = graph_split.split(torch.fx.symbolic_trace(f))
    assert split.parts[0][1] == ["cumsum: the dynamo backend leaves scans to PyTorch for now"]
    assert split.parts[1][1] == []  # Views alone: PyTorch, nothing to say.


def test_graphs_without_such_ops_are_not_split():
    gm = torch.fx.symbolic_trace(lambda x: torch.relu(x) * 2)
    assert graph_split.split(gm) is None
    assert graph_split.pytorch_reason(next(
        n for n in gm.graph.nodes if n.target is operator.mul)) is None


def test_leaf_modules_are_recognized():
    # A trace that keeps modules as calls (torch.fx.symbolic_trace does):
    # nn.Dropout in training mode and nn.MaxPool1d stay in PyTorch; an
    # nn.Dropout in eval mode is the identity fuser takes.
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)
            self.drop = nn.Dropout(0.5)
            self.pool = nn.MaxPool1d(2)

        def forward(self, x):
            return self.pool(self.drop(self.fc(x)).unsqueeze(1)).squeeze(1)

    net = Net()
    gm = torch.fx.symbolic_trace(net)
    split = graph_split.split(gm)
    reasons = [r for _, why in split.parts if why for r in why]
    assert reasons == ["Dropout: its random numbers come from PyTorch's "
                       "generator", "MaxPool1d: fuser's pooling kernels have "
                       "no backward or indices yet"]
    x = torch.randn(3, 8)
    torch.manual_seed(1)
    got = split.module(x)
    torch.manual_seed(1)
    torch.testing.assert_close(got, net(x))
    net.eval()
    gm = torch.fx.symbolic_trace(net)
    split = graph_split.split(gm)
    assert [r for _, why in split.parts if why for r in why] == [
        "MaxPool1d: fuser's pooling kernels have no backward or indices yet"]
