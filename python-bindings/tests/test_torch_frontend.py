"""fuser.torch.compile on the CPU: export through torch-mlir, compile through
fuser's tools, and what the compiled module holds (no GPU: the kernels are
checked through their manifests, not run).

Skipped without torch, torch-mlir or the compiler tools; `make test` runs
these under the project venv (.venv, `make venv`)."""

import inspect
import json
import pathlib
import sys
import warnings

import pytest

from torch_frontend_util import require_front_end

torch = require_front_end()

import fuser  # noqa: E402

import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import fuser.torch as ft  # noqa: E402
from fuser.torch._conversion import fuser_compile  # noqa: E402

# The GPU tests' models (SwiGLU, QKVAttention), at small sizes here.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]
                       / "test/gpu/Inputs"))
import torch_models  # noqa: E402


class LinearLeaky(nn.Module):
    def __init__(self, n_in=32, n_out=64, slope=0.1):
        super().__init__()
        self.lin = nn.Linear(n_in, n_out)
        self.slope = slope

    def forward(self, x):
        return F.leaky_relu(self.lin(x), self.slope)


class WithConstant(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 8)

    def forward(self, x, slope: float = 0.2):
        return F.leaky_relu(self.lin(x), slope)


class TwoOutputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 8)
        self.register_buffer("scale", torch.full((8,), 3.0))

    def forward(self, x):
        y = self.lin(x)
        return {"relu": torch.relu(y) * self.scale, "pair": (y * 2.0, x + 1.0)}


class DataDependent(nn.Module):
    def forward(self, x):
        return x[x > 0]  # Output size depends on the data: no export.


def args_of(compiled, variant=0):
    """[(name, dtype, shape)] of a variant's entry function."""
    v = compiled.fuser_package.variants[variant]
    fn = v.artifact.manifest_dict["functions"][0]
    return [(a["name"], a["dtype"], a["shape"]) for a in fn["args"]]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("fuser-cache")


@pytest.fixture(scope="module")
def static(cache):
    model = LinearLeaky()
    return model, ft.compile(model, torch.randn(8, 32), cache=cache)


@pytest.fixture(scope="module")
def dynamic(cache):
    model = LinearLeaky()
    return model, ft.compile(model, (torch.randn(8, 32),), dynamic="batch",
                             cache=cache)


def test_static_linear_leaky_relu(static):
    model, c = static
    assert c.fuser_fallback is None
    assert [v.name for v in c.fuser_package.variants] == ["static"]
    # Parameters first (named_parameters order), then the tensor inputs.
    assert args_of(c) == [("lin.weight", "f32", [64, 32]),
                          ("lin.bias", "f32", [64]),
                          ("x", "f32", [8, 32])]
    v = c.fuser_package.variants[0]
    fn = v.artifact.manifest_dict["functions"][0]
    assert fn["name"] == "main" and len(fn["results"]) == 1
    assert v.kernels and all(k.startswith("main_") for k in v.kernels)
    for k in v.kernels:
        assert f".entry {k}(" in v.artifact.ptx
    assert v.fused and v.info["dynamic"] == {}


def test_dynamic_batch(dynamic):
    _, c = dynamic
    assert [v.name for v in c.fuser_package.variants] == ["dynamic"]
    assert args_of(c)[2] == ("x", "f32", ["?", 32])
    v = c.fuser_package.variants[0]
    assert v.arg_specs[2] == ("f32", (None, 32))
    assert v.info["dynamic"] == {"x": {"0": "batch"}}


def test_dynamic_spec_forms(cache):
    model = LinearLeaky()
    x = torch.randn(8, 32)
    c = ft.compile(model, x, dynamic={"x": [0]}, cache=cache)
    assert c.fuser_package.variants[0].info["dynamic"] == {
        "x": {"0": "x_dim0"}}
    c = ft.compile(model, x, dynamic={0: {0: "n"}}, cache=cache)
    assert c.fuser_package.variants[0].info["dynamic"] == {"x": {"0": "n"}}
    with pytest.raises(ValueError, match="not a tensor argument"):
        ft.compile(model, x, dynamic={"y": 0}, cache=cache)
    with pytest.raises(ValueError, match="dynamic must be"):
        ft.compile(model, x, dynamic="everything", cache=cache)


def test_remarks_name_the_models_lines(static):
    _, c = static
    remarks = c.fuser_remarks
    assert remarks, "report=true remarks are always collected"
    lines, _ = inspect.getsourcelines(LinearLeaky.forward)
    first = LinearLeaky.forward.__code__.co_firstlineno
    for r in remarks:
        # The user's frame, not torch's internals nor fuser's wrapper.
        assert r.file == __file__, r
        assert first <= r.line < first + len(lines), r
    report = c.fuser_report()
    assert "F.leaky_relu(self.lin(x), self.slope)" in report
    assert "variant static (x: f32[8, 32])" in report


def test_report_prints(capsys, cache):
    ft.compile(LinearLeaky(), torch.randn(4, 32), report=True, cache=cache)
    err = capsys.readouterr().err
    assert "fuser: LinearLeaky for sm_90a (fp32)" in err
    assert "kernel" in err


def test_state_is_shared(static):
    model, c = static
    assert list(c.state_dict()) == list(model.state_dict()) == [
        "lin.weight", "lin.bias"]
    assert c.lin is model.lin
    new = {k: torch.randn_like(v) for k, v in model.state_dict().items()}
    c.load_state_dict(new)
    assert torch.equal(model.lin.weight, new["lin.weight"])
    c.to(torch.float64)
    assert model.lin.weight.dtype == torch.float64
    assert c._fuser_state_tensors()[0] is model.lin.weight
    c.to(torch.float32)
    assert "fuser sm_90a: static: " in repr(c)


def test_forward_signature(cache):
    model = WithConstant()
    c = ft.compile(model, torch.randn(4, 16), cache=cache)
    assert (list(inspect.signature(c.forward).parameters)
            == list(inspect.signature(model.forward).parameters)
            == ["x", "slope"])
    assert c.fuser_package.spec["inputs"] == [
        {"name": "x", "tensor": True}, {"name": "slope", "value": 0.2}]
    # A different constant is refused before any kernel runs.
    with pytest.raises(fuser.FuserError, match="'slope' was 0.2"):
        c(torch.randn(4, 16), slope=0.3)
    with pytest.raises(fuser.FuserError, match="'slope' was 0.2"):
        c(torch.randn(4, 16), 0.5)


class VarArgs(torch.nn.Module):
    def forward(self, *xs):
        return xs[0].unsqueeze(1) * xs[1]


def test_var_positional_forward(cache, tmp_path):
    """forward(*xs) compiles; its inputs are positional-only, saved and
    loaded as such."""
    c = ft.compile(VarArgs(), (torch.randn(4), torch.randn(4, 6)), cache=cache)
    params = list(inspect.signature(c.forward).parameters.values())
    assert [(p.name, p.kind) for p in params] == [
        ("arg0", inspect.Parameter.POSITIONAL_ONLY),
        ("arg1", inspect.Parameter.POSITIONAL_ONLY)]
    ft.save(c, tmp_path / "varargs.fuser")
    loaded = ft.load(tmp_path / "varargs.fuser", module=VarArgs())
    assert [p.name for p in inspect.signature(loaded.forward).parameters.values()] \
        == ["arg0", "arg1"]


def test_call_on_cpu_is_refused_by_the_runtime(static):
    _, c = static
    with torch.no_grad():
        with pytest.raises(fuser.FuserError,
                           match=r"\('lin.weight'\) is on the CPU"):
            c(torch.randn(8, 32))


def test_autograd_warning(cache):
    c = ft.compile(LinearLeaky(), torch.randn(8, 32), cache=cache)
    with pytest.warns(RuntimeWarning, match="no autograd graph") as w:
        with pytest.raises(fuser.FuserError, match="on the CPU"):
            c(torch.randn(8, 32))
    assert w[0].filename == __file__  # Points at the call.
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Once per module.
        with pytest.raises(fuser.FuserError, match="on the CPU"):
            c(torch.randn(8, 32))
    # Through nn.Module.__call__ (a hook is registered) and through forward
    # called directly, it points at the call too.
    for call in ("hooked", "forward"):
        c = ft.compile(LinearLeaky(), torch.randn(8, 32), cache=cache)
        if call == "hooked":
            c.register_forward_pre_hook(lambda m, args: None)
        run = c if call == "hooked" else c.forward
        with pytest.warns(RuntimeWarning, match="no autograd graph") as w:
            with pytest.raises(fuser.FuserError, match="on the CPU"):
                run(torch.randn(8, 32))
        assert w[0].filename == __file__, call


def test_new_shape_compiles_a_variant(cache):
    model = LinearLeaky()
    c = ft.compile(model, torch.randn(8, 32), cache=cache)
    with torch.no_grad(), pytest.raises(fuser.FuserError, match="on the CPU"):
        c(torch.randn(3, 32))
    assert [v.name for v in c.fuser_package.variants] == ["static", "static1"]
    assert args_of(c, 1)[2] == ("x", "f32", [3, 32])
    # add_variant: explicit, e.g. a dynamic one to save alongside.
    v = ft.add_variant(c, torch.randn(8, 32), dynamic=True)
    assert v.name == "dynamic" and v.arg_specs[2] == ("f32", (None, 32))


def test_outputs_and_buffers(cache):
    model = TwoOutputs()
    c = ft.compile(model, torch.randn(4, 16), cache=cache)
    spec = c.fuser_package.spec
    assert [(a["kind"], a["name"]) for a in spec["args"]] == [
        ("parameter", "lin.weight"), ("parameter", "lin.bias"),
        ("buffer", "scale"), ("input", "x")]
    assert spec["outputs"] == {
        "type": "dict", "keys": ["relu", "pair"],
        "items": [{"type": "tensor"},
                  {"type": "tuple", "items": [{"type": "tensor"},
                                              {"type": "tensor"}]}]}
    fn = c.fuser_package.variants[0].artifact.manifest_dict["functions"][0]
    assert len(fn["results"]) == 3
    a, b, d = object(), object(), object()
    assert c._fuser_unflatten((a, b, d)) == {"relu": a, "pair": (b, d)}


def test_eager_fallback(cache):
    model = DataDependent()
    x = torch.randn(16)
    with pytest.warns(RuntimeWarning, match="runs eagerly"):
        c = ft.compile(model, x, cache=cache)
    assert c.fuser_fallback
    assert c.fuser_remarks and "runs eagerly" in c.fuser_remarks[0].message
    assert torch.equal(c(x), model(x))
    with pytest.raises(fuser.FuserError, match="nothing to save"):
        ft.save(c, cache / "never")
    with pytest.raises(Exception):
        ft.compile(model, x, cache=cache, fallback=False)


def test_unfused_retry(cache, monkeypatch):
    """When fusion fails, every op is compiled alone and a remark says so."""
    real = fuser_compile.cached_compile

    def failing_fusion(text, **kw):
        if kw["options"].get("fuse", True) is not False:
            raise fuser.FuserError("fuser-opt failed (exit status 1):\n"
                                   "<input>:1:1: error: simulated")
        return real(text, **kw)

    monkeypatch.setattr(fuser_compile, "cached_compile", failing_fusion)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU())
    with pytest.warns(RuntimeWarning, match="(?s)fusion failed.*simulated"):
        c = ft.compile(model, torch.randn(8, 32), cache=cache)
    v = c.fuser_package.variants[0]
    assert not v.fused and c.fuser_fallback is None
    assert "fusion failed" in v.remarks[0].message
    assert "simulated" in v.remarks[0].message
    assert "unfused (fusion failed)" in c.fuser_report()
    # fallback=False: the fusion error itself, no unfused retry.
    with pytest.raises(fuser.FuserError, match="simulated"):
        ft.compile(model, torch.randn(8, 32), cache=cache, fallback=False)


def test_cache_hit(tmp_path):
    model = LinearLeaky()
    x = torch.randn(8, 32)
    first = ft.compile(model, x, cache=tmp_path)
    again = ft.compile(model, x, cache=tmp_path)
    v1, v2 = first.fuser_package.variants[0], again.fuser_package.variants[0]
    assert v1.info["cache_hit"] is False and v2.info["cache_hit"] is True
    assert v1.artifact.ptx == v2.artifact.ptx
    assert v1.artifact.manifest == v2.artifact.manifest
    assert v1.info["remarks"] == v2.info["remarks"]
    entries = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(entries) == 1 and entries[0].suffix == ".json"  # No temp files.
    # Other options: another entry.
    other = ft.compile(model, x, cache=tmp_path, precision="tf32")
    assert other.fuser_package.variants[0].info["cache_hit"] is False
    # A damaged entry is a miss, and is written again.
    entries[0].write_text("{not json")
    third = ft.compile(model, x, cache=tmp_path)
    assert third.fuser_package.variants[0].info["cache_hit"] is False
    json.loads(entries[0].read_text())
    # cache=False never touches the cache.
    off = ft.compile(model, x, cache=False)
    assert off.fuser_package.variants[0].info["cache_hit"] is False


def test_parse_remarks():
    text = ("/m.py:20:0: remark: fused matmul with 3 epilogue op(s)\n"
            "/m.py:20:0: note: called from\n"
            "loc(unknown): remark: something\n"
            "error: no location\n")
    rs = ft.parse_remarks(text, "static")
    assert [(r.file, r.line, r.kind, r.message) for r in rs] == [
        ("/m.py", 20, "remark", "fused matmul with 3 epilogue op(s)"),
        ("", 0, "remark", "something"),
        ("", 0, "error", "no location")]
    assert rs[0].notes == ["/m.py:20: called from"]
    assert str(rs[0]) == "/m.py:20: remark: fused matmul with 3 epilogue op(s)"


def test_not_a_module():
    with pytest.raises(TypeError, match="nn.Module"):
        ft.compile(lambda x: x, torch.randn(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError):
            ft.compile(LinearLeaky(), (torch.randn(8, 32), 1, 2))


class TensorDefault(nn.Module):
    def forward(self, x, y=torch.ones(4), scale: float = 2.0):
        return x * scale + y


def test_tensor_default(cache, tmp_path):
    """A tensor default is a kernel argument: bound from the module's own
    forward here; a loaded package without the module asks for it."""
    c = ft.compile(TensorDefault(), torch.randn(3, 4), cache=cache)
    assert [a["name"] for a in c.fuser_package.spec["args"]] == ["x", "y"]
    with torch.no_grad(), pytest.raises(fuser.FuserError,
                                        match=r"\('x'\) is on the CPU"):
        c(torch.randn(3, 4))
    loaded = ft.load(ft.save(c, tmp_path / "pkg"))
    assert str(inspect.signature(loaded.forward)) == (
        "(x, y=<unsaved default>, scale=2.0)")
    with pytest.raises(fuser.FuserError, match="pass forward argument 'y'"):
        loaded(torch.randn(3, 4))


class LogSumExpAfterLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(64, 32)

    def forward(self, x):
        return torch.logsumexp(self.lin(x), dim=1)


class TriuOfProduct(nn.Module):
    def forward(self, a, b):
        return torch.triu(a @ b), torch.tril(a @ b)


class KLDiv(nn.Module):
    def forward(self, p, q):
        return F.kl_div(torch.log(p), q, reduction="batchmean")


@pytest.mark.parametrize("model, example", [
    (LogSumExpAfterLinear, [(8, 64)]),
    (TriuOfProduct, [(16, 16), (16, 16)]),
    (KLDiv, [(8, 10), (8, 10)]),
], ids=["logsumexp", "triu_tril", "kl_div"])
@pytest.mark.parametrize("training", [False, True], ids=["forward", "training"])
def test_factory_ops_export_on_meta(model, example, training, cache,
                                   monkeypatch):
    """Their forward decompositions make tensors on the tracing device
    (scalar_tensor, arange), which torch-mlir refused on `meta`; the front
    end drops the device of such factory ops (_export/mlir.drop_devices),
    so they compile from the meta export alone, and so on every device
    the export tries."""
    import fuser.torch._export.program as program

    args = tuple(torch.rand(s) for s in example)
    if not training:
        with monkeypatch.context() as meta_only:
            meta_only.setattr(program, "EXPORT_DEVICES", ("meta",))
            c = ft.compile(model(), args, cache=cache, fallback=False)
            assert c.fuser_fallback is None
    c = ft.compile(model(), args, cache=cache, fallback=False,
                   training=training)
    assert c.fuser_fallback is None
    assert all(v.kernels for v in c.fuser_package.variants)
    if training:
        grads = c.fuser_package.variants[0].info["training"]["grads"]
        assert any(g is not None for g in grads)


class LinearBatchNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 8)
        self.bn = nn.BatchNorm1d(8)

    def forward(self, x):
        return self.bn(self.lin(x))


def test_buffer_updates_are_written_back(cache):
    """BatchNorm in training mode updates its running statistics in
    forward: the kernels return their new values first (the variant's
    "mutations" name which arguments), and the module copies them into its
    buffers, returning the output alone. (No GPU: a stand-in for the kernels
    computes the same results with a copy of the model.)"""
    import copy

    torch.manual_seed(0)
    model = LinearBatchNorm()
    c = ft.compile(model, torch.randn(8, 16), cache=cache, fallback=False)
    v = c.fuser_package.variants[0]
    names = [a["name"] for a in c.fuser_package.spec["args"]]
    assert [names[i] for i in v.info["mutations"]] == [
        "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"]
    stand_in = copy.deepcopy(model)

    def kernels(*tensors):
        y = stand_in(tensors[-1])
        bn = stand_in.bn
        return (bn.running_mean.clone(), bn.running_var.clone(),
                bn.num_batches_tracked.clone(), y)
    v.entry = lambda: kernels
    ref = copy.deepcopy(model)
    with torch.no_grad():
        for _ in range(2):
            x = torch.randn(8, 16)
            torch.testing.assert_close(c(x), ref(x))
            for b in ("running_mean", "running_var", "num_batches_tracked"):
                assert torch.equal(getattr(model.bn, b), getattr(ref.bn, b))
    assert int(model.bn.num_batches_tracked) == 2
    # A saved package keeps the mutations.
    again = ft.load(ft.save(c, cache / "bn.fuser"), module=model)
    assert again.fuser_package.variants[0].info["mutations"] == [4, 5, 6]


class MaxOverRows(nn.Module):
    def forward(self, x):
        return torch.max(x, dim=1)


def test_structseq_outputs(cache):
    """torch.max's (values, indices) comes back as torch.return_types.max,
    through a saved package too. (A stand-in computes the kernels'
    results: no GPU here.)"""
    c = ft.compile(MaxOverRows(), torch.randn(6, 10), cache=cache,
                   fallback=False)
    assert c.fuser_package.spec["outputs"]["return_type"] == "max"
    x = torch.randn(6, 10)
    want = torch.max(x, dim=1)
    for m in (c, ft.load(ft.save(c, cache / "max.fuser"))):
        m.fuser_package.variants[0].entry = lambda: (
            lambda *ts: (want.values, want.indices))
        got = m(x)
        assert isinstance(got, torch.return_types.max)
        assert torch.equal(got.values, want.values)
        assert torch.equal(got.indices, want.indices)


class Cumulative(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=1) + torch.cumprod(x, dim=0)


@pytest.mark.parametrize("training", [False, True], ids=["forward", "training"])
def test_scans_compile(training, cache):
    """torch.cumsum and torch.cumprod come from torch-mlir as tm_tensor.scan,
    which the front end imports as fuser.scan: each a scan kernel (the
    backward's reversed scans too), nothing left to PyTorch."""
    from fuser.torch._export.mlir import import_scans

    c = ft.compile(Cumulative(), torch.randn(8, 40), cache=cache,
                   fallback=False, training=training)
    assert c.fuser_fallback is None
    kernels = [launch["kernel"] for v in c.fuser_package.variants
               for f in v.artifact.manifest_dict["functions"]
               for launch in f["launches"]]
    assert sum("_scan" in k for k in kernels) >= (4 if training else 2), kernels
    # Another TMTensor op keeps its name, and its yields theirs, so that
    # fuser-opt's error names it.
    text = ("%0:2 = tm_tensor.scan dimension(0) inclusive(true) ins(%a) {\n"
            "  tm_tensor.yield %s : f32\n}\n%1 = tm_tensor.sort dimension(0)")
    renamed = import_scans(text)
    assert "fuser.scan" in renamed and "tm_tensor.yield" in renamed
    assert "tm_tensor.sort" in renamed
    assert "fuser.yield" in import_scans(text.rsplit("\n", 1)[0])


class RotaryPad(nn.Module):
    def forward(self, x):
        half = x.shape[-1] // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return F.pad(x * 0.5 + rotated, (1, 2), value=-1.0)


@pytest.mark.parametrize("model, shape", [
    (lambda: torch_models.SwiGLU(16, 24), (5, 16)),
    (lambda: torch_models.QKVAttention(32, 4), (2, 9, 32)),
    (RotaryPad, (3, 7, 10))],
    ids=["chunk", "unbind", "cat_pad"])
@pytest.mark.parametrize("training", [False, True], ids=["forward", "training"])
def test_slices_cats_and_pads_compile(model, shape, training, cache):
    """Slices (chunk, unbind, x[..., :h]), concatenations and pads that no
    fused kernel reads in place compile to gather kernels, with a remark,
    instead of failing on a strided view (the backward's pads and
    insertions too)."""
    c = ft.compile(model(), torch.randn(*shape), cache=cache,
                   fallback=False, training=training)
    assert c.fuser_fallback is None
    messages = [r.message for r in c.fuser_remarks]
    assert any("computed by a gather kernel" in m for m in messages), messages
