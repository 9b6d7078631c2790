"""fuser.torch.compile of models with ops fuser leaves to PyTorch
(fuser/torch/_partitioned.py): convolutions (fuser has no convolution
kernel; its generic fallback would be far slower than cuDNN) and random
numbers. The export finds them; the module is split around them, the
runs between compile through fuser (their fx graphs run in place of the
kernels here, as in test_torch_training_dynamo.py), the ops run in
PyTorch, each named in a remark at the user's line. Checked against eager,
gradients included; the ModelNew converter writes a partitioned ModelNew.

Skipped without torch, torch-mlir or the compiler tools."""

import copy
import operator
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from torch_frontend_util import require_front_end, run_without_compiler

torch = require_front_end()

import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import fuser  # noqa: E402
import fuser.torch as ft  # noqa: E402
from fuser.torch import kernelbench  # noqa: E402
from fuser.torch._lowering import graph_split  # noqa: E402
from test_torch_dynamo_split import ConvBnRelu  # noqa: E402
from test_torch_training_dynamo import RAN, graphs_for_kernels  # noqa: E402,F401

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "test" / "gpu"
                       / "Inputs"))
import model_blocks  # noqa: E402


class ConvBlock(nn.Module):
    """A convolution, then a pointwise chain and a Linear over channels."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 16, 3, padding=1)
        self.fc = nn.Linear(16, 12)

    def forward(self, x):
        y = F.gelu(self.conv(x)) * 0.5  # conv: PyTorch
        return self.fc(y.permute(0, 2, 3, 1)).tanh()


class DropoutConvNet(nn.Module):
    """Linear, dropout (in training mode), 1-D convolution, Linear."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 24)
        self.drop = nn.Dropout(0.25)
        self.conv = nn.Conv1d(1, 2, 5, padding=2)
        self.fc2 = nn.Linear(48, 10)

    def forward(self, x):
        y = self.drop(F.relu(self.fc1(x)))
        return self.fc2(self.conv(y.unsqueeze(1)).flatten(1))


def _line_of(text):
    """The line of this file holding `text`."""
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if text in line)


def test_convolution_runs_in_pytorch_and_the_rest_through_fuser(
        graphs_for_kernels):
    torch.manual_seed(0)
    model = ConvBlock()
    x = torch.randn(2, 4, 9, 7)
    with pytest.warns(RuntimeWarning, match="conv2d runs in PyTorch: fuser "
                      "has no convolution kernel"):
        c = ft.compile(model, (x,), cache=False)
    assert isinstance(c, ft.PartitionedModule)
    [(name, why, file, line)] = c.fuser_pytorch_ops
    assert name == "conv2d" and file == __file__
    assert line == _line_of("y = F.gelu(self.conv(x))")
    assert c.state_dict().keys() == model.state_dict().keys()
    for batch in (2, 3):
        x = torch.randn(batch, 4, 9, 7)
        y = c(x)
        assert not y.requires_grad  # Forward only, as CompiledModule.
        torch.testing.assert_close(y, model(x), atol=1e-5, rtol=1e-5)
    graphs = [r for r in c._fuser_records if r["kind"] != "split"]
    # Batch 3 is a new static graph: two graphs, neither eager.
    assert len(graphs) == 2 and all(r["eager"] is None for r in graphs)
    assert RAN, "fuser's graphs did not run"
    report = c.fuser_report()
    assert "conv2d runs in PyTorch" in report
    assert "graph 0 (inference):" in report and "graph 1 (inference):" in report
    assert c.fuser_kernels and all(c.fuser_kernels.values())
    assert any(r.message.startswith("conv2d runs in PyTorch")
               for r in c.fuser_remarks)
    assert any(r.message.startswith("fused") for r in c.fuser_remarks)


def test_training_with_dropout_and_convolution_matches_eager(
        graphs_for_kernels):
    torch.manual_seed(1)
    model = DropoutConvNet()
    ref = copy.deepcopy(model)
    x = torch.randn(6, 20)
    with pytest.warns(RuntimeWarning, match="dropout runs in PyTorch"):
        c = ft.compile(model, (x,), cache=False, training=True,
                       fallback=False)
    assert [op[0] for op in c.fuser_pytorch_ops] == ["dropout", "conv1d"]
    for step in range(2):
        x = torch.randn(6, 20)
        torch.manual_seed(10 + step)  # The same dropout masks both times.
        y = c(x)
        torch.manual_seed(10 + step)
        y2 = ref(x)
        torch.testing.assert_close(y, y2, atol=1e-5, rtol=1e-5)
        y.square().sum().backward()
        y2.square().sum().backward()
        for (n, p), q in zip(model.named_parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, atol=1e-4, rtol=1e-4,
                                       msg=n)
    graphs = [r for r in c._fuser_records if r["kind"] == "training"]
    assert graphs and all(r["eager"] is None for r in graphs)


def test_dropout_of_zero_compiles_whole():
    """Dropout with p = 0 (real models' configs often say 0.0) is the
    identity in training mode too: nothing is left to PyTorch."""
    model = nn.Sequential(nn.Linear(20, 24), nn.Dropout(0.0), nn.ReLU())
    c = ft.compile(model, (torch.randn(6, 20),), cache=False, training=True,
                   fallback=False)
    assert isinstance(c, ft.TrainingModule)
    gm = torch.fx.symbolic_trace(model)
    assert graph_split.split(gm) is None
    # Forward only, the module still in training mode (as a fresh one is).
    c = ft.compile(model, (torch.randn(6, 20),), cache=False, fallback=False)
    assert isinstance(c, ft.CompiledModule)
    # The functional form, p positional or by keyword.
    for f in (lambda x: F.dropout(x, 0.0, True).relu(),
              lambda x: F.dropout(x, p=0.0, training=True).relu()):
        assert graph_split.split(torch.fx.symbolic_trace(f)) is None
    assert graph_split.split(torch.fx.symbolic_trace(
        lambda x: F.dropout(x, 0.1, True).relu())) is not None


def test_dropout_in_eval_mode_compiles_whole(graphs_for_kernels):
    model = DropoutConvNet().eval()
    model.conv = nn.Identity()
    x = torch.randn(6, 20)
    model.fc2 = nn.Linear(24, 10)
    c = ft.compile(model, (x,), cache=False)
    assert isinstance(c, ft.CompiledModule)


CONV_PROBLEM = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels, features):
        super().__init__()
        self.conv = nn.Conv2d(channels, 16, 3, padding=1)
        self.bn = nn.BatchNorm1d(16)
        self.fc = nn.Linear(16, features)

    def forward(self, x):
        y = torch.relu(self.conv(x)).mean((2, 3))
        return self.fc(self.bn(y)) * 0.5


def get_inputs():
    return [torch.rand(4, 8, 10, 10)]


def get_init_inputs():
    return [8, 24]
"""


def test_the_model_new_converter_partitions(tmp_path):
    """A problem with a convolution gives a partitioned ModelNew: the
    convolution in PyTorch, the rest from the graph packages in the file,
    loaded where nothing compiles. BatchNorm1d stays in training mode, as
    users' harnesses leave it, in fuser's graph: outputs and running
    statistics (written back after each call) as eager's after 3 calls.
    Another shape has no package: it runs eagerly, said."""
    problem = tmp_path / "conv_problem.py"
    problem.write_text(CONV_PROBLEM)
    out = tmp_path / "conv_new.py"
    assert kernelbench.main([str(problem), "-o", str(out), "--no-cache"]) == 0
    text = out.read_text()
    assert "class ModelNew(_fuser_torch.PartitionedModule):" in text
    assert "conv_problem.py:13: remark: conv2d runs in PyTorch" in text
    assert "static shapes only" in text
    run_without_compiler(f"""
        import importlib.util, warnings
        import torch, fuser
        from fuser.torch._package import graphs_in_place_of_kernels
        spec = importlib.util.spec_from_file_location("conv_new", {str(out)!r})
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        init = m.get_init_inputs()
        torch.manual_seed(7)
        ref = m.Model(*init)
        torch.manual_seed(7)
        new = m.ModelNew(*init)
        assert list(new.state_dict()) == list(ref.state_dict())
        x = torch.randn(4, 8, 10, 10)
        with graphs_in_place_of_kernels():
            for _ in range(3):
                got = new(x)
                with torch.no_grad():
                    want = ref(x)
                torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
            for (k, a), b in zip(ref.state_dict().items(),
                                 new.state_dict().values()):
                torch.testing.assert_close(b, a, msg=k)
            assert new.bn.num_batches_tracked.item() == 3
            graphs = new._fuser_graphs()
            assert [g["loaded"] for g in graphs] == [True], graphs
            # A second instance shares the file's packages (CUDA modules
            # load once).
            other = m.ModelNew(*init)
            other(x)
            assert other._fuser_graphs()[0]["module"].fuser_package is \
                graphs[0]["module"].fuser_package
            assert "conv2d runs in PyTorch" in new.fuser_report()
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always")
                small = torch.randn(2, 8, 10, 10)
                torch.testing.assert_close(new(small), ref(small).detach())
        assert any("none of the ModelNew file's 1 graph package(s)" in
                   str(w.message) for w in said), [str(w.message) for w in said]
        """, tmp_path)


def test_a_mode_where_nothing_fuses_runs_eagerly(graphs_for_kernels):
    """In train mode every op of ConvBnRelu stays in PyTorch: after the
    first call the module runs itself. In eval mode the BatchNorm and the
    ReLU are fuser's: the first eval call compiles them."""
    model = ConvBnRelu()
    ref = copy.deepcopy(model)
    x = torch.randn(2, 3, 8, 8)
    with pytest.warns(RuntimeWarning, match="conv2d runs in PyTorch"):
        c = ft.compile(model, (x,), cache=False, fallback=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # The split's.
        c.train()
        torch.testing.assert_close(c(x), ref(x).detach())
        assert c._fuser_eager and not c._fuser_graphs()
        c.eval()
        ref.eval()
        assert not c._fuser_eager
        torch.testing.assert_close(c(x), ref(x).detach(), atol=1e-5,
                                   rtol=1e-5)
    assert not c._fuser_eager and [g["eager"] for g in c._fuser_graphs()] \
        == [None]


def test_the_dynamo_split_leaves_convolutions_to_pytorch():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 2, 1)

        def forward(self, x):
            return F.conv_transpose2d(self.conv(x).relu(),
                                      torch.ones(2, 2, 2, 2)) * 2

    gm = torch.fx.symbolic_trace(Net())
    split = graph_split.split(gm)
    reasons = [r for _, why in split.parts if why for r in why]
    assert reasons == [
        "Conv2d: fuser has no convolution kernel yet (cuDNN's is far faster)",
        "conv_transpose2d: fuser has no convolution kernel yet (cuDNN's is "
        "far faster)"]
    assert graph_split.pytorch_reason(next(
        n for n in gm.graph.nodes if n.target is operator.mul)) is None


@pytest.mark.parametrize("name", model_blocks.partitioned_small())
@pytest.mark.parametrize("training", [False, True], ids=["forward", "training"])
def test_real_conv_blocks_match_eager(name, training, graphs_for_kernels):
    """timm's ConvNeXt and ResNet blocks (test/gpu/Inputs/model_blocks.py):
    the convolutions in PyTorch, the rest through fuser; forward in eval
    mode, training in train mode (BatchNorm's batch statistics and running
    statistics) with gradients, against eager."""
    pytest.importorskip("timm")
    model = model_blocks.build(name).train(training)
    ref = copy.deepcopy(model)
    x = torch.randn(model_blocks.shape(name))
    with pytest.warns(RuntimeWarning, match="conv2d runs in PyTorch"):
        c = ft.compile(model, (x,), cache=False, training=training,
                       fallback=False)
    assert isinstance(c, ft.PartitionedModule)
    y, y2 = c(x), ref(x)
    torch.testing.assert_close(y, y2, atol=1e-4, rtol=1e-4)
    if training:
        y.square().sum().backward()
        y2.square().sum().backward()
        for (n, p), q in zip(model.named_parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, atol=1e-4, rtol=1e-4,
                                       msg=n)
        for (n, b), r in zip(model.named_buffers(), ref.buffers()):
            torch.testing.assert_close(b, r, atol=1e-5, rtol=1e-5, msg=n)
    graphs = [r for r in c._fuser_records if r["kind"] != "split"]
    if training and any(isinstance(m, nn.BatchNorm2d) for m in model.modules()):
        # BatchNorm's batch statistics stay in PyTorch, and so do the ReLU
        # and the residual add left between them: nothing for fuser.
        assert graphs == [], graphs
        assert "BatchNorm with batch statistics over images" in \
            c.fuser_report()
        # Nothing runs through fuser: later calls skip dynamo.
        assert c._fuser_eager and "nothing of the model runs through " \
            "fuser" in str(c.fuser_remarks)
        torch.testing.assert_close(c(x), ref(x), atol=1e-4, rtol=1e-4)
        return
    assert graphs and all(r["eager"] is None for r in graphs), graphs
