"""torch.compile(model, backend="fuser") on the CPU (fuser/torch/dynamo.py,
_dynamo_backend.py):
registration, the on-disk compile cache across processes (a second process
compiles nothing; two at once leave a valid cache), the eager fallback of a
graph fuser cannot compile, and the forward/backward wiring of W1, W2 and W3
(small: batch 7, 40 -> 24, 6 groups of 4) checked by running the fx graphs
the kernels were compiled from in their place (no GPU here).

Skipped without torch, torch-mlir or the compiler tools."""

import copy
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from torch_frontend_util import require_front_end

torch = require_front_end()

import fuser  # noqa: E402
import fuser.torch.dynamo as fd  # noqa: E402
from fuser.torch import _dynamo_backend  # noqa: E402
from fuser.torch._package import _graph_in_place_of_kernels  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MODELS = {
    "w1": ("w1", [0.01]),
    "w2": ("w2", [40, 24, 2.0, 0.1]),
    "w3": ("w3", [40, 24, 6]),
}


def build(name, seed=0):
    file, init = MODELS[name]
    spec = importlib.util.spec_from_file_location(
        f"fuser_problem_{file}", ROOT / "examples" / "torch" / f"{file}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(seed)
    return module.Model(*init)


def _graph_entry(variant):
    """A variant's kernels replaced by the fx graph they were compiled from
    (the CPU has no GPU; a loaded variant, which has none, takes the graph
    of the compiled one with the same code); `RAN` records the variants
    run."""
    if variant.graph is None:
        variant.graph = GRAPHS[variant.artifact.ptx]
    GRAPHS[variant.artifact.ptx] = variant.graph

    def run(*ts):
        RAN.append(variant)
        return _graph_in_place_of_kernels(variant, *ts)
    return run


RAN = []
GRAPHS = {}


@pytest.fixture
def graphs_for_kernels(monkeypatch):
    """Compiled graphs run their fx graphs (the CPU has no GPU)."""
    from fuser.torch._package import Variant

    monkeypatch.setattr(Variant, "entry", _graph_entry)
    RAN.clear()
    fd.COMPILED.clear()
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def test_registered():
    assert "fuser" in torch._dynamo.list_backends()


@pytest.mark.parametrize("name", ["w1", "w2", "w3"])
def test_forward_and_backward_match_eager(name, graphs_for_kernels,
                                          tmp_path):
    model = build(name)
    ref = copy.deepcopy(model)
    # Batch 5 recompiles with a dynamic batch (dynamo's automatic dynamic
    # shapes): a dynamic variant, which batch 9 reuses.
    c = torch.compile(model, backend="fuser", options={"cache": tmp_path})
    for batch in (7, 5, 9):
        x = torch.randn(batch, 40, requires_grad=True)
        x2 = x.detach().clone().requires_grad_(True)
        y = c(x)
        (y * y).sum().backward()
        y2 = ref(x2)
        (y2 * y2).sum().backward()
        torch.testing.assert_close(y, y2, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(x.grad, x2.grad, atol=1e-4, rtol=1e-4)
        for p, q in zip(model.parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, atol=1e-4, rtol=1e-4)
        model.zero_grad()
        ref.zero_grad()
    with torch.no_grad():
        x = torch.randn(7, 40)
        torch.testing.assert_close(c(x), ref(x), atol=1e-5, rtol=1e-5)
    kinds = [r["kind"] for r in fd.COMPILED]
    assert kinds == ["training", "training", "inference"]
    variants = [v.name for r in fd.COMPILED[:2]
                for v in r["module"].fuser_package.variants]
    assert variants == ["static", "static-backward", "dynamic",
                        "dynamic-backward"]
    assert all(r["eager"] is None and r["kernels"] for r in fd.COMPILED)


def test_gradients_chosen_per_call(graphs_for_kernels, tmp_path):
    """The same per-call choice as fuser.torch.compile(training=True): data
    without grad runs the pair with parameter gradients only (no dL/dx),
    x.requires_grad_() the pair with it; the parameters the optimizer
    steps are the ones the kernels read."""
    model = build("w2")
    eager = copy.deepcopy(model)
    c = torch.compile(model, backend="fuser", dynamic=False,
                      options={"cache": tmp_path})
    opts = [torch.optim.SGD(m.parameters(), lr=0.05) for m in (model, eager)]
    for step, dx in enumerate((False, True, False)):
        x = torch.randn(7, 40)
        xs = [x.clone().requires_grad_(dx) for _ in range(2)]
        RAN.clear()
        for net, xi, opt in zip((c, eager), xs, opts):
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(xi), torch.ones(7, 24)).backward()
            opt.step()
        fw, bw = RAN
        grads = fw.info["training"]["grads"]
        assert (grads[-1] is not None) == dx, step
        assert bw.name == fw.info["training"]["backward"]
        if dx:
            torch.testing.assert_close(xs[0].grad, xs[1].grad, atol=1e-5,
                                       rtol=1e-5)
        for p, q in zip(model.parameters(), eager.parameters()):
            torch.testing.assert_close(p, q, atol=1e-5, rtol=1e-5)
    # Dynamo compiled one graph per requires_grad case.
    assert [r["kind"] for r in fd.COMPILED] == ["training", "training"]


def test_graph_packages_run_where_nothing_compiles(graphs_for_kernels,
                                                   tmp_path, monkeypatch):
    """A graph compiled once is a package in the cache directory; without
    torch-mlir or the tools, the same graph loads it (the GPU machines), and
    a graph it has no package for says what to do."""
    model = build("w2")
    x = torch.randn(7, 40)
    c = torch.compile(model, backend="fuser", dynamic=False,
                      options={"cache": tmp_path})
    c(x).sum().backward()
    assert fd.COMPILED[-1]["loaded"] is False
    assert len(list((tmp_path / "graphs").glob("*.fuser.zip"))) == 1
    torch._dynamo.reset()
    monkeypatch.setattr(_dynamo_backend, "_can_compile", lambda: False)
    monkeypatch.setattr(fd.graph_packages, "tools_or_none", lambda: None)
    c = torch.compile(model, backend="fuser", dynamic=False,
                      options={"cache": tmp_path, "fallback": False})
    grads = []
    for net in (c, copy.deepcopy(model)):
        net.zero_grad()
        net(x).sum().backward()
        grads.append([p.grad for p in net.parameters()])
    assert fd.COMPILED[-1]["loaded"] is True
    for a, b in zip(*grads):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    with pytest.raises(Exception, match="lacks(.|\n)*FUSER_CACHE_DIR"):
        c(torch.randn(7, 40).requires_grad_())


def test_unsupported_graph_runs_eagerly(graphs_for_kernels):
    class Mask(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x) * 2, x > 0.5

    c = torch.compile(Mask(), backend="fuser", options={"cache": False})
    x = torch.randn(7, 40)
    with pytest.warns(RuntimeWarning, match="runs eagerly.*i1 tensor"):
        with torch.no_grad():
            y, mask = c(x)
    assert torch.equal(mask, x > 0.5) and torch.equal(y, torch.relu(x) * 2)
    assert fd.COMPILED[-1]["eager"].startswith("FuserError")
    with pytest.raises(Exception, match="i1 tensor"):
        torch._dynamo.reset()
        with torch.no_grad():
            torch.compile(Mask(), backend="fuser",
                          options={"cache": False, "fallback": False})(x)


# -- the on-disk cache, across processes ----------------------------------------

CHILD = '''
import json, sys, importlib.util, torch
import fuser.torch  # noqa: F401
import torch._dynamo
import fuser.torch.dynamo as fd
from fuser.torch._lowering.fx_graph import run_in_place_of_kernels
from fuser.torch._package import Variant


def entry(v):
    """The fx graph for the kernels; a variant loaded from a graph package
    has none: zeros of its results' shapes (only the records are read)."""
    if v.graph is not None:
        return lambda *ts: run_in_place_of_kernels(v.graph, *ts)
    fn = v.artifact.manifest_dict["functions"][0]
    shapes = [fn["buffers"][r["buffer"]]["shape"] for r in fn["results"]]
    return lambda *ts: tuple(torch.zeros(s) for s in shapes)


Variant.entry = entry
spec = importlib.util.spec_from_file_location("w2", {problem!r})
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
torch.manual_seed(0)
model = m.Model(40, 24, 2.0, 0.1)
c = torch.compile(model, backend="fuser", options={{"cache": {cache!r}}})
c(torch.randn(7, 40, requires_grad=True)).sum().backward()
print(json.dumps([[r["kind"], r["loaded"]] for r in fd.COMPILED]))
'''


def child_env():
    paths = [os.path.dirname(os.path.dirname(os.path.abspath(
        fuser.__file__)))]
    paths += [os.path.abspath(p) for p in
              os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths))


def start(cache):
    code = CHILD.format(problem=str(ROOT / "examples" / "torch" / "w2.py"),
                        cache=str(cache))
    return subprocess.Popen([sys.executable, "-c", code], env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(proc):
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def test_second_process_compiles_nothing(tmp_path):
    assert finish(start(tmp_path)) == [["training", False]]
    assert finish(start(tmp_path)) == [["training", True]]


def test_concurrent_processes_leave_a_valid_cache(tmp_path):
    procs = [start(tmp_path), start(tmp_path)]
    for p in procs:
        assert [k for k, _ in finish(p)] == ["training"]
    # One compile-cache entry per kernel function (forward, backward) and
    # one graph package: the same keys, replaced whole.
    entries = [e for e in tmp_path.rglob("*.json")
               if not e.name.endswith(".tools.json")]
    assert len(entries) == 2
    for e in entries:
        assert "ptx" in json.loads(e.read_text())
    assert len(list(tmp_path.rglob("*.fuser.zip"))) == 1
    assert not list(tmp_path.rglob(".tmp-*"))
    assert finish(start(tmp_path)) == [["training", True]]


def test_fuser_torch_registers_when_dynamo_is_loaded():
    code = textwrap.dedent('''
        import torch, torch._dynamo
        import fuser.torch
        print("fuser" in torch._dynamo.list_backends())
        ''')
    done = subprocess.run([sys.executable, "-c", code], env=child_env(),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "True"


def test_loading_fuser_torch_does_not_import_dynamo():
    code = 'import sys, fuser.torch; print("torch._dynamo" in sys.modules)'
    done = subprocess.run([sys.executable, "-c", code], env=child_env(),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_no_warnings_on_the_happy_path(graphs_for_kernels, tmp_path):
    c = torch.compile(build("w1"), backend="fuser",
                      options={"cache": tmp_path})
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        c(torch.randn(7, 40, requires_grad=True)).sum().backward()
