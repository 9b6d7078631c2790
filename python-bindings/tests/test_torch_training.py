"""fuser.torch.compile(..., training=True) on the CPU: the seed models
(examples/torch/w{1,2,3}.py) at small, odd sizes (batch 7, 40 -> 24
features, GroupNorm's 6 groups of 4), static and dynamic batch: AOTAutograd's
forward and backward graphs exported through torch-mlir and compiled through
fuser's tools; the kernels' manifests and argument order; the plan that ties
them (what the forward saves, what the backward takes and returns); the
package's round trip through a process without torch-mlir or the tools.

No GPU here: the kernels are not run. The plan's arithmetic is checked by
running the very fx graphs the kernels were compiled from in their place
(Variant.graph), against eager PyTorch and a float64 reference, for
gradients and for 3 SGD steps. test/gpu/test_torch_training.py runs the
kernels.

Skipped without torch, torch-mlir or the compiler tools; run with the
project venv:
  PYTHONPATH=build/python_packages .venv/bin/python -m pytest -q \
      python-bindings/tests/test_torch_training.py
"""

import copy
import json
import warnings
from pathlib import Path

import pytest

from torch_frontend_util import require_front_end, run_without_compiler

torch = require_front_end()

import fuser  # noqa: E402

import torch.nn as nn  # noqa: E402

import fuser.torch as ft  # noqa: E402
from fuser.torch._lowering.fx_graph import run_in_place_of_kernels  # noqa: E402
from fuser.torch.kernelbench import load_problem  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# name -> (seed problem file, constructor arguments); input (7, 40).
MODELS = {
    "w1": ("w1", [0.01]),
    "w2": ("w2", [40, 24, 2.0, 0.1]),
    "w3": ("w3", [40, 24, 6]),
}
SHAPE = (7, 40)


def problem(seed):
    return load_problem(ROOT / "examples" / "torch" / f"{seed}.py")


def build(name, seed=0):
    file, init = MODELS[name]
    torch.manual_seed(seed)
    return problem(file).Model(*init)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("fuser-training-cache")


_COMPILED = {}


def compiled_model(name, dynamic, cache):
    """(eager model, its training module); compiled once per module."""
    key = (name, dynamic)
    if key not in _COMPILED:
        model = build(name)
        # The example input requires grad: the first pair computes dL/dx
        # too (test_gradients_chosen_per_call compiles from data that does
        # not).
        _COMPILED[key] = (model, ft.compile(
            model, torch.randn(SHAPE).requires_grad_(), training=True,
            dynamic=dynamic, cache=cache, fallback=False))
    return _COMPILED[key]


def run_graphs(compiled, calls=None):
    """Every variant, and every pair the module compiles later, runs its fx
    graph instead of its kernels (the CPU has no GPU); `calls`, a list,
    records the name of each variant run. Returns the module."""
    def patch():
        for v in compiled.fuser_package.variants:
            def entry(v=v):
                graph = v.graph

                def run(*ts):
                    if calls is not None:
                        calls.append(v.name)
                    return run_in_place_of_kernels(graph, *ts)
                return run
            v.entry = entry

    patch()
    compiler = compiled._fuser_compiler
    if compiler is not None and "on_demand" not in vars(compiler):
        on_demand = compiler.on_demand

        def compile_and_patch(*args, **kwargs):
            variant = on_demand(*args, **kwargs)
            patch()
            return variant
        compiler.on_demand = compile_and_patch
    return compiled


def manifest_args(variant):
    fn = variant.artifact.manifest_dict["functions"][0]
    return [(a["name"], a["dtype"], a["shape"]) for a in fn["args"]]


def manifest_results(variant):
    return variant.artifact.manifest_dict["functions"][0]["results"]


DYNAMIC = [None, "batch"]


@pytest.mark.parametrize("dynamic", DYNAMIC, ids=["static", "dynamic"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_compiles_forward_and_backward(name, dynamic, cache):
    model, c = compiled_model(name, dynamic, cache)
    assert isinstance(c, ft.TrainingModule)
    assert c.fuser_fallback is None
    base = "dynamic" if dynamic else "static"
    fw, bw = c.fuser_package.variants
    assert (fw.name, bw.name) == (base, f"{base}-backward")
    for v in (fw, bw):
        assert v.kernels and v.fused
        assert v.artifact.ptx.count(".entry") == len(v.kernels)
    # The forward kernel takes the parameters, then x (never frozen).
    batch = "?" if dynamic else 7
    params = [(n, "f32", list(p.shape)) for n, p in model.named_parameters()]
    assert manifest_args(fw) == params + [("x", "f32", [batch, 40])]
    plan = fw.info["training"]
    n_args = len(params) + 1
    assert plan["backward"] == bw.name
    assert plan["outputs"] == 1
    assert len(manifest_results(fw)) == 1 + len(plan["saved"])
    # The backward's arguments: each from a forward result, a forward
    # argument, or the output's gradient; named after where they come from.
    names = [a[0] for a in manifest_args(bw)]
    assert len(names) == len(plan["backward_args"])
    for a, n in zip(plan["backward_args"], names):
        if a["from"] == "arg":
            assert 0 <= a["index"] < n_args
            assert n == f"arg:{manifest_args(fw)[a['index']][0]}"
        elif a["from"] == "result":
            assert 0 <= a["index"] < len(manifest_results(fw))
            assert n.startswith("saved:")
        else:
            assert a == {"from": "grad", "index": 0} and n == "grad:0"
    assert sum(a["from"] == "grad" for a in plan["backward_args"]) == 1
    # A gradient for every parameter and for x, each a backward result.
    assert len(plan["grads"]) == n_args
    results = len(manifest_results(bw))
    assert sorted(g["index"] for g in plan["grads"]) == list(range(results))
    assert all(g["from"] == "result" for g in plan["grads"])
    report = c.fuser_report()
    assert "fuser (training)" in report and "backward of" in report
    print(f"[training] {name} {base}: forward {len(fw.kernels)} kernel(s), "
          f"backward {len(bw.kernels)}; saved {plan['saved']}")


def test_what_the_forward_saves(cache):
    """Only what the math needs: W1 and W2 save nothing but their output
    (leaky_relu's mask is read off it, the weights and x are arguments), so
    W2's forward stays one kernel; W3 saves h = x·Wᵀ + b (what GroupNorm
    reads: the matmul's epilogue result) and recomputes the group
    statistics (returning them would end the forward's fusion), so its
    forward is two kernels."""
    for name, saved in (("w1", []), ("w2", []), ("w3", ["add"])):
        _, c = compiled_model(name, None, cache)
        fw = c.fuser_package.variants[0]
        assert fw.info["training"]["saved"] == saved, name
    _, c = compiled_model("w2", None, cache)
    assert len(c.fuser_package.variants[0].kernels) == 1
    _, c3 = compiled_model("w3", None, cache)
    assert len(c3.fuser_package.variants[0].kernels) == 2
    bw_args = c.fuser_package.variants[0].info["training"]["backward_args"]
    assert {"from": "result", "index": 0} in bw_args  # The output itself.


def test_relu_output_saved_once(cache):
    """relu's backward reads its output, which AOTAutograd saves as
    alias(alias(relu)): the plan reads the module's output, not a second
    result in the same buffer (the manifest would refuse it)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(40, 24), nn.ReLU())
    c = run_graphs(ft.compile(model, torch.randn(SHAPE), training=True,
                              cache=cache, fallback=False))
    fw = c.fuser_package.variants[0]
    assert fw.info["training"]["saved"] == []
    x, r = torch.randn(SHAPE), torch.randn(7, 24)
    for a, b in zip(grads(c, x, r), grads(model, x, r)):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)


def loss_of(y, r):
    return (y * r).sum()


def grads(model, x, r):
    x = x.detach().clone().requires_grad_(True)
    params = list(model.parameters())
    y = model(x)
    return [y.detach()] + list(torch.autograd.grad(loss_of(y, r),
                                                   [x] + params))


@pytest.mark.parametrize("dynamic", DYNAMIC, ids=["static", "dynamic"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_plan_gradients_match_eager(name, dynamic, cache):
    """The graphs the kernels were compiled from, wired by the plan through
    the autograd.Function, against eager fp32 (1e-5) and float64 (1e-4)."""
    model, c = compiled_model(name, dynamic, cache)
    run_graphs(c)
    ref64 = copy.deepcopy(model).double()
    for batch in ([7, 1, 3] if dynamic else [7]):
        x = torch.rand(batch, 40)
        with torch.no_grad():
            r = torch.randn(model(x).shape)
        got = grads(c, x, r)
        for ref, xr, rr, tol in ((model, x, r, 1e-5),
                                 (ref64, x.double(), r.double(), 1e-4)):
            want = grads(ref, xr, rr)
            assert len(got) == len(want)
            for i, (a, b) in enumerate(zip(got, want)):
                torch.testing.assert_close(a, b.float(), atol=tol, rtol=tol,
                                           msg=f"{name} batch {batch} "
                                           f"value {i}")


@pytest.mark.parametrize("name", sorted(MODELS))
def test_plan_sgd_steps_match_eager(name, cache):
    """3 steps of forward, backward and SGD through the plan (graphs in
    place of kernels) equal eager's; parameters get .grad."""
    model, c = compiled_model(name, None, cache)
    run_graphs(c)
    eager = copy.deepcopy(model)
    torch.manual_seed(5)
    xs = [torch.rand(SHAPE) for _ in range(3)]
    with torch.no_grad():
        rs = [torch.randn(model(xs[0]).shape) for _ in range(3)]
    trained = {}
    for label, net in (("fuser", c), ("eager", eager)):
        params = list(net.parameters())
        own_input = not params  # W1: the input is trained.
        if own_input:
            params = [nn.Parameter(xs[0].clone())]
        opt = torch.optim.SGD(params, lr=0.05)
        losses = []
        for step in range(3):
            opt.zero_grad()
            loss = loss_of(net(params[0] if own_input else xs[step]),
                           rs[step]) / SHAPE[0]
            loss.backward()
            assert all(p.grad is not None for p in params)
            opt.step()
            losses.append(float(loss.detach()))
        trained[label] = (losses, [p.detach().clone() for p in params])
    (lf, pf), (le, pe) = trained["fuser"], trained["eager"]
    assert lf == pytest.approx(le, rel=1e-5, abs=1e-5)
    for a, b in zip(pf, pe):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    # The compiled module trained the model's own parameters.
    for a, b in zip(model.parameters(), pf if list(model.parameters())
                    else []):
        assert torch.equal(a.detach(), b)


def test_no_grad_runs_the_forward_alone(cache):
    model, c = compiled_model("w2", None, cache)
    run_graphs(c)
    x = torch.rand(SHAPE)
    with torch.no_grad():
        y = c(x)
    assert not y.requires_grad
    torch.testing.assert_close(y, model(x).detach())


def test_kernels_need_cuda_tensors(cache):
    """Without the graphs swapped in, a CPU call reaches the runtime, which
    refuses CPU tensors readably (the kernels are CUDA's)."""
    model = build("w2")
    c = ft.compile(model, torch.randn(SHAPE), training=True, cache=cache,
                   fallback=False)
    with pytest.raises(fuser.FuserError, match="on the CPU"):
        c(torch.rand(SHAPE)).sum().backward()


class WithBatchNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(40, 24)
        self.bn = nn.BatchNorm1d(24)

    def forward(self, x):
        return self.bn(self.lin(x))


def test_batchnorm_trains_and_updates_running_statistics(cache):
    """BatchNorm in training mode: batch statistics in the forward and
    backward kernels, and the running mean, variance and count (updated in
    place by PyTorch's forward) returned first by the forward kernel and
    written back, so that 3 SGD steps leave the parameters, the losses and
    the buffers as eager's (graphs in place of kernels)."""
    torch.manual_seed(0)
    model = WithBatchNorm()
    c = ft.compile(model, torch.randn(SHAPE), training=True, cache=cache,
                   fallback=False)
    assert c.fuser_fallback is None
    fw = c.fuser_package.variants[0]
    names = [a["name"] for a in c.fuser_package.spec["args"]]
    assert [names[i] for i in fw.info["mutations"]] == [
        "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"]
    plan = fw.info["training"]
    assert plan["outputs"] == 4 and plan["differentiable"] == [3]
    run_graphs(c)
    eager = copy.deepcopy(model)
    opts = [torch.optim.SGD(m.parameters(), lr=0.05) for m in (model, eager)]
    for step in range(3):
        x = torch.rand(SHAPE)
        losses = []
        for net, opt in zip((c, eager), opts):
            opt.zero_grad()
            loss = (net(x) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
        assert losses[0] == pytest.approx(losses[1], rel=1e-5, abs=1e-6)
    for (n, a), b in zip(model.state_dict().items(),
                         eager.state_dict().values()):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5, msg=n)
    assert int(model.bn.num_batches_tracked) == 3
    # Without grad (the users' benchmark harness), the buffers move too.
    with torch.no_grad():
        x = torch.rand(SHAPE)
        torch.testing.assert_close(c(x), eager(x), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(model.bn.running_mean, eager.bn.running_mean)
    assert int(model.bn.num_batches_tracked) == 4


def test_gradients_chosen_per_call(cache):
    """The backward computes the gradients the call's tensors require: from
    data that does not require grad, parameter gradients only (dW and db:
    no dL/dx kernel); a call whose input requires grad compiles the pair
    with dL/dx once, and later calls switch between the two without
    compiling; a frozen weight gets a pair without dW."""
    model = build("w2")
    c = ft.compile(model, torch.randn(SHAPE), training=True, cache=cache,
                   fallback=False)
    fw, bw = c.fuser_package.variants
    assert fw.info["training"]["grads"][-1] is None
    assert all(g is not None for g in fw.info["training"]["grads"][:-1])
    assert len(manifest_results(bw)) == 2  # dW and db only.
    calls = []
    run_graphs(c, calls)
    compiled = []
    on_demand = c._fuser_compiler.on_demand
    c._fuser_compiler.on_demand = lambda *a, **k: (
        compiled.append(1), on_demand(*a, **k))[1]
    eager = copy.deepcopy(model)

    def step(x):
        calls.clear()
        for net in (c, eager):
            net.zero_grad()
        xs = [x, x.detach().clone().requires_grad_(x.requires_grad)]
        for net, xi in zip((c, eager), xs):
            net(xi).sum().backward()
        for a, b in zip(model.parameters(), eager.parameters()):
            torch.testing.assert_close(a.grad, b.grad, atol=1e-5, rtol=1e-5)
        if x.requires_grad:
            torch.testing.assert_close(xs[0].grad, xs[1].grad, atol=1e-5,
                                       rtol=1e-5)
        return list(calls)

    assert step(torch.rand(SHAPE)) == ["static", "static-backward"]
    assert compiled == []
    with_dx = step(torch.rand(SHAPE).requires_grad_())
    assert with_dx == ["static1", "static1-backward"] and compiled == [1]
    plan = c.fuser_package.variants[2].info["training"]
    assert all(g is not None for g in plan["grads"])
    assert len(manifest_results(c.fuser_package.variants[3])) == 3
    for x in (torch.rand(SHAPE), torch.rand(SHAPE).requires_grad_()):
        assert step(x)[0] == ("static1" if x.requires_grad else "static")
    assert compiled == [1]
    # A frozen weight: a pair for db alone (no dW GEMM).
    model.gemm.weight.requires_grad_(False)
    eager.gemm.weight.requires_grad_(False)
    assert step(torch.rand(SHAPE)) == ["static2", "static2-backward"]
    grads = c.fuser_package.variants[4].info["training"]["grads"]
    assert [g is not None for g in grads] == [False, True, False]
    assert compiled == [1, 1]
    assert "; gradients of gemm.bias)" in c.fuser_report()


def test_loaded_package_without_the_pair_says_so(cache, tmp_path):
    """Where nothing compiles, a call takes the pair with the fewest extra
    gradients (dropped), and one no pair covers is a readable error."""
    model = build("w2")
    c = ft.compile(model, torch.randn(SHAPE), training=True, cache=cache,
                   fallback=False)
    again = ft.load(ft.save(c, tmp_path / "w2.fuser"), module=model)
    for v, orig in zip(again.fuser_package.variants,
                       c.fuser_package.variants):
        v.graph = orig.graph
    calls = []
    run_graphs(again, calls)
    model.gemm.weight.requires_grad_(False)
    again(torch.rand(SHAPE)).sum().backward()
    assert calls == ["static", "static-backward"]
    assert model.gemm.weight.grad is None and model.gemm.bias.grad is not None
    with pytest.raises(fuser.FuserError,
                       match=r"gradients this call needs \(gemm.bias, x\)"
                       r"(.|\n)*static: gradients of gemm.weight, gemm.bias"
                       r"(.|\n)*add_variant"):
        again(torch.rand(SHAPE).requires_grad_())


# -- packages ---------------------------------------------------------------





@pytest.mark.parametrize("suffix", ["", ".zip"])
def test_package_carries_both_directions(suffix, cache, tmp_path):
    model, c = compiled_model("w3", "batch", cache)
    path = ft.save(c, tmp_path / f"w3-training.fuser{suffix}", weights=True)
    spec = json.loads(ft.Package.from_files(
        __import__("fuser.torch._save_load", fromlist=["read_files"])
        .read_files(path)).to_json())
    assert spec["version"] == 2 and spec["training"] == {}
    assert [v["name"] for v in spec["variants"]] == ["dynamic",
                                                     "dynamic-backward"]
    again = ft.load(path, module=model)
    assert isinstance(again, ft.TrainingModule)
    for a, b in zip(again.fuser_package.variants, c.fuser_package.variants):
        assert a.name == b.name and a.artifact.ptx == b.artifact.ptx
        assert a.artifact.manifest_dict == b.artifact.manifest_dict
        assert a.info.get("training") == b.info.get("training")
    # Where neither torch-mlir nor the compiler is (the GPU machines).
    out = run_without_compiler(f'''
        import json
        import torch
        import fuser.torch as ft
        c = ft.load({str(path)!r})
        assert isinstance(c, ft.TrainingModule), type(c)
        fw, bw = c.fuser_package.variants
        assert fw.info["training"]["backward"] == bw.name == "dynamic-backward"
        assert sorted(k for k, _ in c.named_parameters()) == [
            "fc.bias", "fc.weight", "gn.bias", "gn.weight"]
        print(json.dumps({{"fw": len(fw.kernels), "bw": len(bw.kernels)}}))
        ''', tmp_path)
    counts = json.loads(out.splitlines()[0])
    assert counts == {"fw": len(c.fuser_package.variants[0].kernels),
                      "bw": len(c.fuser_package.variants[1].kernels)}


def test_loaded_package_trains_through_the_plan(cache, tmp_path):
    """A loaded package (no graphs) wires the same autograd.Function: with
    the original graphs as stand-in kernels it gives eager's gradients."""
    model, c = compiled_model("w2", None, cache)
    path = ft.save(c, tmp_path / "w2.fuser")
    again = ft.load(path, module=model)
    for v, orig in zip(again.fuser_package.variants,
                       c.fuser_package.variants):
        v.graph = orig.graph
    run_graphs(again)
    x = torch.rand(SHAPE)
    with torch.no_grad():
        r = torch.randn(model(x).shape)
    for a, b in zip(grads(again, x, r), grads(copy.deepcopy(model), x, r)):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)


def test_training_compile_warns_nothing_unexpected(cache):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        compiled_model("w1", None, cache)


def test_add_variant_and_new_shapes(cache):
    """add_variant adds a forward/backward pair; a call with new shapes
    compiles a static pair on demand (the compiler is here)."""
    model = build("w2")
    c = ft.compile(model, torch.randn(SHAPE).requires_grad_(), training=True,
                   cache=cache, fallback=False)
    fw = ft.add_variant(c, torch.randn(SHAPE).requires_grad_(),
                        dynamic="batch")
    names = [v.name for v in c.fuser_package.variants]
    assert names == ["static", "static-backward", "dynamic",
                     "dynamic-backward"]
    assert fw.name == "dynamic" and fw.info["training"]["backward"] == \
        "dynamic-backward"
    assert manifest_args(c.fuser_package.variants[3])[-1] == (
        "grad:0", "f32", ["?", 24])
    # Batch 7 takes the static pair, batch 3 the dynamic one.
    run_graphs(c)
    ref = copy.deepcopy(model)
    for batch in (7, 3):
        x = torch.rand(batch, 40)
        with torch.no_grad():
            r = torch.randn(batch, 24)
        for a, b in zip(grads(c, x, r), grads(ref, x, r)):
            torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    chosen = {k[0][-1][1][0]: v.name for k, v in c._fuser_by_key.items()
              if isinstance(k[1][0], bool)}
    assert chosen == {7: "static", 3: "dynamic"}
    # Without a dynamic variant, a new batch compiles a static pair.
    c2 = ft.compile(build("w1"), torch.randn(SHAPE), training=True,
                    cache=cache, fallback=False)
    with pytest.raises(fuser.FuserError, match="on the CPU"):
        c2(torch.rand(5, 40).requires_grad_(True))
    assert [v.name for v in c2.fuser_package.variants] == [
        "static", "static-backward", "static1", "static1-backward"]


class Structured(nn.Module):
    """A dict and a tuple of outputs, a buffer, a frozen weight, and a
    relu whose backward builds a scalar_tensor (a factory op)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 8)
        self.register_buffer("scale", torch.linspace(-2.0, 2.0, 8))
        self.frozen = nn.Linear(8, 8)
        self.frozen.weight.requires_grad_(False)

    def forward(self, x):
        y = self.lin(x)
        return {"a": torch.relu(y) * self.scale,
                "b": (self.frozen(y) * 0.5, x + 1.0)}


@pytest.mark.parametrize("dynamic", DYNAMIC, ids=["static", "dynamic"])
def test_structured_outputs_buffers_and_frozen_weights(dynamic, cache):
    torch.manual_seed(0)
    model = Structured()
    ref = copy.deepcopy(model)
    c = ft.compile(model, torch.randn(7, 16), training=True, cache=cache,
                   dynamic=dynamic, fallback=False)
    plan = c.fuser_package.variants[0].info["training"]
    assert plan["outputs"] == 3
    names = [n for n, _ in model.named_parameters()] + ["scale", "x"]
    grads_of = dict(zip(names, plan["grads"]))
    assert grads_of["frozen.weight"] is None and grads_of["scale"] is None
    run_graphs(c)
    for batch in ([7, 3] if dynamic else [7]):
        x = torch.randn(batch, 16, requires_grad=True)
        x2 = x.detach().clone().requires_grad_(True)
        for net, xi in ((c, x), (ref, x2)):
            o = net(xi)
            assert set(o) == {"a", "b"} and isinstance(o["b"], tuple)
            (o["a"].sum() + (o["b"][0] ** 2).sum() +
             (o["b"][1] * 3).sum()).backward()
        torch.testing.assert_close(x.grad, x2.grad)
        for (n, p), q in zip(model.named_parameters(), ref.parameters()):
            if n == "frozen.weight":
                assert p.grad is None and q.grad is None
            else:
                torch.testing.assert_close(p.grad, q.grad, msg=n)
        model.zero_grad()
        ref.zero_grad()


def autocast_reference(name, model, x):
    """What the model computes under torch.autocast("cuda", bfloat16),
    written out: the Linear in bf16 (bf16 weight, bias and input; f32 sums),
    W3's GroupNorm in f32 on the bf16 result."""
    lin = model.gemm if name == "w2" else model.fc
    h = torch.nn.functional.linear(x.bfloat16(), lin.weight.bfloat16(),
                                   lin.bias.bfloat16())
    if name == "w2":
        return model.leaky_relu(h * model.multiplier)
    y = model.leaky_relu(model.gn(h.float()))
    return y + y


@pytest.mark.parametrize("dynamic", DYNAMIC, ids=["static", "dynamic"])
@pytest.mark.parametrize("name", ["w2", "w3"])
def test_autocast_runs_a_pair_compiled_for_it(name, dynamic, cache):
    """A call under torch.autocast("cuda", bfloat16) compiles (once) and
    runs a pair of its own, autocast's casts among its ops: the products on
    bf16 tensor cores in both directions, W3's GroupNorm in f32; outputs and
    gradients as autocast computes them (the pair's fx graphs run in place
    of the kernels: no GPU here; autocast is switched on the way
    torch.autocast does, which refuses without CUDA). A call outside
    autocast runs the fp32 pair again."""
    from fuser.torch._export.autocast import cuda_autocast

    model = build(name)
    c = ft.compile(model, torch.randn(SHAPE), training=True, cache=cache,
                   fallback=False, dynamic=dynamic)
    calls = []
    run_graphs(c, calls)
    base = "dynamic" if dynamic else "static"
    for batch in ([7, 3] if dynamic else [7]):
        x = torch.rand(batch, 40) * 2 - 1
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # Not eager.
            with cuda_autocast("bf16"):
                y = c(x)
        r = torch.randn(y.shape)
        (y.float() * r).sum().backward()
        assert calls[-2:] == [f"{base}-autocast-bf16",
                              f"{base}-autocast-bf16-backward"]
        grads = [p.grad.clone() for p in model.parameters()]
        model.zero_grad()
        ref = autocast_reference(name, model, x)
        (ref.float() * r).sum().backward()
        assert y.dtype == ref.dtype == (torch.bfloat16 if name == "w2"
                                        else torch.float32)
        torch.testing.assert_close(y, ref, atol=1e-2, rtol=1e-2)
        for g, p in zip(grads, model.parameters()):
            assert g.dtype == torch.float32
            torch.testing.assert_close(g, p.grad, atol=1e-2, rtol=1e-2)
        model.zero_grad()
    by_name = {v.name: v for v in c.fuser_package.variants}
    fw = by_name[f"{base}-autocast-bf16"]
    bw = by_name[f"{base}-autocast-bf16-backward"]
    assert fw.info["autocast"] == bw.info["autocast"] == "bf16"
    assert len([v for v in by_name if "autocast" in v]) == 2  # Compiled once.
    for v in (fw, bw):
        assert any("matmul kernel:" in r.message and " in bf16" in r.message
                   for r in v.remarks), [r.message for r in v.remarks]
    # The bias gradient sums bf16 terms in f32.
    assert any("16-bit sum accumulated in f32" in r.message
               for r in bw.remarks)
    if name == "w2":
        # leaky_relu's mask is read off the bf16 output (read_masks_off_
        # outputs through the f32 copy autocast's backward compares): the
        # backward takes bf16 tensors the forward saved (the output, x),
        # no f32 copy.
        saved = [a for a in manifest_args(bw) if a[0].startswith("saved:")]
        assert saved and all(dtype == "bf16" for _, dtype, _ in saved), saved
    calls.clear()
    with torch.no_grad():
        torch.testing.assert_close(c(x), model(x))
    assert calls == [base]


def test_autocast_pairs_saved_and_chosen(cache, tmp_path):
    """fuser.torch.add_variant(..., autocast="bf16") compiles an autocast
    pair without a GPU; a package holding one is version 3 and a loaded
    module runs it for calls under autocast only."""
    from fuser.torch._export.autocast import cuda_autocast

    model = build("w3")
    c = ft.compile(model, torch.randn(SHAPE), training=True, cache=cache,
                   fallback=False)
    with pytest.raises(fuser.FuserError, match="bf16, f16"):
        ft.add_variant(c, torch.randn(SHAPE), autocast="fp8")
    ft.add_variant(c, torch.randn(SHAPE), autocast="bf16")
    path = ft.save(c, tmp_path / "w3.fuser")
    spec = json.loads((path / "fuser-torch.json").read_text())
    assert spec["version"] == 3
    assert [v.get("autocast") for v in spec["variants"]] == \
        [None, None, "bf16", "bf16"]
    again = ft.load(path, module=model)
    tensors = again._fuser_tensors((torch.randn(SHAPE),), {})
    assert again._fuser_training_variant(tensors, "bf16").name == \
        "static-autocast-bf16"
    assert again._fuser_training_variant(tensors).name == "static"
    # A loaded package without a pair for f16 autocast runs the module
    # eagerly there, said once by a warning and a remark.
    x = torch.rand(SHAPE)
    with cuda_autocast("f16"):
        with pytest.warns(RuntimeWarning, match="no variant compiled for "
                          "f16 autocast"):
            y = again(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            y.sum().backward()
            again(x)
    torch.testing.assert_close(y, model(x))
    assert model.fc.weight.grad is not None
    assert any("torch.autocast" in r.message for r in again.fuser_remarks)

