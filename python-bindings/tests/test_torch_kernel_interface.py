"""fuser.torch.elementwise (the KernelInterface API, issue 14 item 3) on the
CPU: an elementwise function defined once in Python, its forward and backward
kernels exported (AOTAutograd, torch-mlir) and compiled by fuser's tools;
kernel counts from the report; the explicit forward(x, slope) and
backward(grad_out, x, slope) and the autograd path; constants compiled in (a
new one compiles again); errors for what it does not take; packages read
where neither torch-mlir nor the tools are.

No GPU here: the kernels are not run. The arithmetic is checked by running
the fx graphs the kernels were compiled from in their place (Variant.graph)
against eager PyTorch and float64. test/gpu/test_torch_kernel_interface.py
runs the kernels.

  PYTHONPATH=build/python_packages .venv/bin/python -m pytest -q \\
      python-bindings/tests/test_torch_kernel_interface.py
"""

import json
import os

import pytest

from torch_frontend_util import require_front_end, run_without_compiler

torch = require_front_end()

import fuser  # noqa: E402
import fuser.torch as ft  # noqa: E402
from fuser.torch._lowering.fx_graph import run_in_place_of_kernels  # noqa: E402


def leaky_relu(x, slope):
    return torch.where(x > 0, x, x * slope)


def swish(x, beta):
    return x * torch.sigmoid(beta * x)


def scaled_mix(x, y, alpha):
    return x * y + alpha * torch.exp(-x * x)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("fuser-elementwise-cache")


def graphs_as_kernels(kernel):
    """Every compiled form runs the fx graphs its kernels were compiled
    from (the CPU has no GPU); returns the kernel."""
    for module in kernel._compiled.values():
        for v in module.fuser_package.variants:
            graph = v.graph

            def entry(graph=graph):
                def run(*ts, out=None):
                    results = run_in_place_of_kernels(graph, *ts)
                    if out is None:
                        return results
                    assert len(out) == len(results)
                    for o, r in zip(out, results):
                        o.copy_(r)  # The caller's tensors, written.
                    return tuple(out)
                return run
            v.entry = entry
    return kernel


def manifest_args(variant):
    fn = variant.artifact.manifest_dict["functions"][0]
    return [(a["name"], a["dtype"], a["shape"]) for a in fn["args"]]


def eager_grads(fn, grad_out, tensors, consts, dtype):
    ts = [t.detach().to(dtype).requires_grad_(True) for t in tensors]
    y = fn(*ts, *consts)
    return y.detach(), torch.autograd.grad(y, ts, grad_out.to(dtype))


def test_leaky_relu_is_one_kernel_each_way(cache):
    """forward(x, slope): 1 kernel of x; backward(grad_out, x, slope): 1
    kernel of x and grad_out (nothing saved: the mask is recomputed from
    x); both over a dynamic number of elements."""
    kernel = ft.elementwise(leaky_relu, example=(torch.empty(5), 0.1),
                            cache=cache)
    assert isinstance(kernel, ft.ElementwiseKernel)
    (module,) = kernel._compiled.values()
    fw, bw = module.fuser_package.variants
    assert (fw.name, bw.name) == ("dynamic", "dynamic-backward")
    assert len(fw.kernels) == 1 and len(bw.kernels) == 1
    assert fw.fused and bw.fused
    assert manifest_args(fw) == [("x", "f32", ["?"])]
    assert manifest_args(bw) == [("arg:x", "f32", ["?"]),
                                 ("grad:0", "f32", ["?"])]
    plan = fw.info["training"]
    assert plan["saved"] == [] and plan["grads"] == [
        {"from": "result", "index": 0}]
    report = kernel.fuser_report()
    assert "variant dynamic (x: f32[?]; gradients of x): 1 kernel (main_pointwise); fused" \
        in report
    assert "1 kernel (main_pointwise); fused" in report.split(
        "variant dynamic-backward")[1]
    # The remarks point at fn's line in this file.
    assert f"{os.path.basename(__file__)}:" in report
    assert "torch.where(x > 0, x, x * slope)" in report
    assert kernel.fuser_kernels == {"constants [0.1], float32": {
        "dynamic": ["main_pointwise"],
        "dynamic-backward": ["main_pointwise"]}}


SHAPES = [(7, 13), (1,), (3, 5, 2), (), (129, 1)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_forward_and_backward_match_eager(shape, cache):
    """The explicit kernels and the autograd path on odd shapes, one
    dynamic kernel pair for all, against eager fp32 and float64."""
    kernel = graphs_as_kernels(ft.elementwise(
        leaky_relu, example=(torch.empty(5), 0.1), cache=cache))
    x = torch.randn(shape)
    g = torch.randn(shape)
    for dtype, tol in ((torch.float32, 1e-6), (torch.float64, 1e-6)):
        y_ref, (dx_ref,) = eager_grads(leaky_relu, g, [x], (0.1,), dtype)
        y = kernel.forward(x, 0.1)
        dx = kernel.backward(g, x, 0.1)
        assert y.shape == x.shape and dx.shape == x.shape
        torch.testing.assert_close(y.to(dtype), y_ref, atol=tol, rtol=tol)
        torch.testing.assert_close(dx.to(dtype), dx_ref, atol=tol, rtol=tol)
    # As an autograd function: the output's gradient runs the backward.
    xr = x.clone().requires_grad_(True)
    y = kernel(xr, 0.1)
    assert y.requires_grad and y.shape == x.shape
    y.backward(g)
    torch.testing.assert_close(xr.grad, dx)
    torch.testing.assert_close(y.detach(), kernel.forward(x, 0.1))
    assert len(kernel._compiled) == 1  # Every shape: the same pair.


def test_views_and_empty_tensors(cache):
    kernel = graphs_as_kernels(ft.elementwise(
        swish, example=(torch.empty(5), 1.5), cache=cache))
    base = torch.randn(9, 11)
    for x in (base.t(), base[:, 1:], base.reshape(-1)[1:]):  # Not dense or
        g = torch.randn(x.shape)                              # not aligned.
        y_ref, (dx_ref,) = eager_grads(swish, g, [x], (1.5,), torch.float32)
        torch.testing.assert_close(kernel.forward(x, 1.5), y_ref)
        torch.testing.assert_close(kernel.backward(g, x, 1.5), dx_ref)
        xr = x.detach().clone().requires_grad_(True)
        kernel.apply(xr, 1.5).backward(g)
        torch.testing.assert_close(xr.grad, dx_ref)
    empty = torch.empty(0, 4)
    assert kernel.forward(empty, 1.5).shape == (0, 4)
    assert kernel.backward(empty, empty, 1.5).shape == (0, 4)
    xr = empty.clone().requires_grad_(True)
    kernel(xr, 1.5).sum().backward()
    assert xr.grad.shape == (0, 4)


def test_preallocated_outputs(cache):
    """forward(..., out=y) and backward(..., out=dx) write the caller's
    tensors (the GPU test poisons them with NaN first)."""
    kernel = graphs_as_kernels(ft.elementwise(
        leaky_relu, example=(torch.empty(5), 0.1), cache=cache))
    x, g = torch.randn(4, 6), torch.randn(4, 6)
    y = torch.full((4, 6), float("nan"))
    assert kernel.forward(x, 0.1, out=y) is y
    torch.testing.assert_close(y, leaky_relu(x, 0.1))
    dx = torch.full((4, 6), float("nan"))
    assert kernel.backward(g, x, 0.1, out=dx) is dx
    _, (dx_ref,) = eager_grads(leaky_relu, g, [x], (0.1,), torch.float32)
    torch.testing.assert_close(dx, dx_ref)
    with pytest.raises(fuser.FuserError, match="must have shape"):
        kernel.forward(x, 0.1, out=torch.empty(24))
    with pytest.raises(fuser.FuserError, match="contiguous"):
        kernel.forward(x, 0.1, out=torch.empty(6, 4).t())
    with pytest.raises(fuser.FuserError, match="1 tensor arguments"):
        kernel.backward(g, x, 0.1, out=(dx, dx))
    two = graphs_as_kernels(ft.elementwise(
        scaled_mix, example=(torch.empty(4), torch.empty(4), 0.5),
        cache=cache))
    y2 = torch.randn(4, 6)
    dxs = (torch.full((4, 6), float("nan")), torch.full((4, 6), float("nan")))
    assert two.backward(g, x, y2, 0.5, out=dxs) is dxs
    _, refs = eager_grads(scaled_mix, g, [x, y2], (0.5,), torch.float32)
    for a, b in zip(dxs, refs):
        torch.testing.assert_close(a, b)


def test_new_constants_compile_again_cached(cache, tmp_path):
    """The slope is a constant of the kernels: a new value compiles a new
    pair (kept in the object); the same value again compiles nothing, and
    a new object finds it in the on-disk cache."""
    kernel = graphs_as_kernels(ft.elementwise(leaky_relu, cache=cache))
    assert kernel.fuser_kernels == {}
    x = torch.randn(6, 7)
    for slope in (0.1, 0.2, 0.1):
        kernel.compile(x, slope)
        graphs_as_kernels(kernel)
        y = kernel.forward(x, slope)
        torch.testing.assert_close(y, leaky_relu(x, slope))
    assert sorted(kernel.fuser_kernels) == ["constants [0.1], float32",
                                            "constants [0.2], float32"]
    texts = {k: [v.artifact.ptx for v in m.fuser_package.variants]
             for k, m in kernel._compiled.items()}
    assert texts[min(texts)] != texts[max(texts)]  # 0.1 vs 0.2 in the PTX.
    again = ft.elementwise(leaky_relu, example=(x, 0.2), cache=cache)
    (module,) = again._compiled.values()
    assert all(v.info["cache_hit"] for v in module.fuser_package.variants)
    # float64 tensors: a form of their own.
    kernel.compile(x.double(), 0.1)
    assert "constants [0.1], float64" in kernel.fuser_kernels


def test_static_forms_are_per_size(cache):
    kernel = graphs_as_kernels(ft.elementwise(
        leaky_relu, dynamic=False, example=(torch.empty(7, 13), 0.1),
        cache=cache))
    (module,) = kernel._compiled.values()
    assert [v.name for v in module.fuser_package.variants] == [
        "static", "static-backward"]
    assert manifest_args(module.fuser_package.variants[0]) == [
        ("x", "f32", [91])]
    x = torch.randn(13, 7)  # 91 elements: the same form.
    torch.testing.assert_close(kernel.forward(x, 0.1), leaky_relu(x, 0.1))
    kernel.compile(torch.empty(5), 0.1)
    assert sorted(kernel.fuser_kernels) == [
        "constants [0.1], float32, 5 elements",
        "constants [0.1], float32, 91 elements"]


def test_two_tensor_arguments(cache):
    """fn(x, y, alpha): both are kernel arguments; backward returns a
    gradient for each (one kernel per gradient today)."""
    kernel = graphs_as_kernels(ft.elementwise(
        scaled_mix, example=(torch.empty(4), torch.empty(4), 0.5),
        cache=cache))
    (module,) = kernel._compiled.values()
    fw, bw = module.fuser_package.variants
    assert len(fw.kernels) == 1
    assert [a[0] for a in manifest_args(fw)] == ["x", "y"]
    assert [a[0] for a in manifest_args(bw)] == ["arg:x", "arg:y", "grad:0"]
    x, y, g = torch.randn(3, 5), torch.randn(3, 5), torch.randn(3, 5)
    out_ref, (dx_ref, dy_ref) = eager_grads(scaled_mix, g, [x, y], (0.5,),
                                            torch.float64)
    torch.testing.assert_close(kernel.forward(x, y, 0.5).double(), out_ref,
                               atol=1e-6, rtol=1e-6)
    dx, dy = kernel.backward(g, x, y, 0.5)
    torch.testing.assert_close(dx.double(), dx_ref, atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(dy.double(), dy_ref, atol=1e-6, rtol=1e-6)


def test_bad_functions_and_arguments(cache):
    with pytest.raises(fuser.FuserError, match="not elementwise.*sum"):
        ft.elementwise(lambda x: x - x.sum(), example=torch.empty(4),
                       cache=cache)
    with pytest.raises(fuser.FuserError, match="not elementwise.*softmax"):
        ft.elementwise(lambda x: torch.softmax(x, 0),
                       example=torch.empty(4), cache=cache)
    with pytest.raises(fuser.FuserError, match="one tensor.*tuple"):
        ft.elementwise(lambda x: (x, x + 1), example=torch.empty(4),
                       cache=cache)
    with pytest.raises(fuser.FuserError, match="returns a tensor of shape"):
        ft.elementwise(lambda x: x.reshape(2, -1).amax(1) * 1.0,
                       example=torch.empty(4), cache=cache)
    with pytest.raises(TypeError, match="takes a function"):
        ft.elementwise(3)
    kernel = ft.elementwise(leaky_relu, example=(torch.empty(4), 0.1),
                            cache=cache)
    x = torch.randn(4)
    with pytest.raises(TypeError, match="tensors first"):
        kernel.forward(0.1, x)
    with pytest.raises(TypeError, match="tensor after a constant"):
        kernel.forward(x, 0.1, x)
    with pytest.raises(TypeError, match="constant argument 1 is a object"):
        kernel.forward(x, object())
    with pytest.raises(fuser.FuserError, match="no broadcasting"):
        ft.elementwise(scaled_mix, cache=cache).forward(
            x, torch.randn(1), 0.5)
    with pytest.raises(fuser.FuserError, match="grad_out has shape"):
        kernel.backward(torch.randn(5), x, 0.1)
    with pytest.raises(TypeError, match="gradient first"):
        kernel.backward(0.1, x)
    # The kernels are CUDA's: a CPU tensor reaches the runtime, which says so.
    with pytest.raises(fuser.FuserError, match="on the CPU"):
        kernel.forward(x, 0.1)
    with pytest.raises(fuser.FuserError, match="on the CPU"):
        kernel(x.requires_grad_(True), 0.1)
    with pytest.raises(fuser.FuserError, match="nothing compiled"):
        ft.elementwise(swish).save("unused.fuser")


# -- packages ---------------------------------------------------------------





@pytest.mark.parametrize("suffix", ["", ".zip"])
def test_save_and_load_without_the_compiler(suffix, cache, tmp_path):
    kernel = ft.elementwise(leaky_relu, cache=cache)
    for slope in (0.01, 0.1):
        kernel.compile(torch.empty(3), slope)
    path = kernel.save(tmp_path / f"leaky.fuser{suffix}")
    again = ft.load_elementwise(path)
    assert again.fuser_kernels == kernel.fuser_kernels
    for a, b in zip(again._compiled.values(), kernel._compiled.values()):
        for va, vb in zip(a.fuser_package.variants,
                          b.fuser_package.variants):
            assert va.artifact.ptx == vb.artifact.ptx
            assert va.info.get("training") == vb.info.get("training")
    # Loaded, it runs the same plan (the original graphs as kernels).
    for a, b in zip(again._compiled.values(), kernel._compiled.values()):
        for va, vb in zip(a.fuser_package.variants,
                          b.fuser_package.variants):
            va.graph = vb.graph
    graphs_as_kernels(again)
    x, g = torch.randn(4, 3), torch.randn(4, 3)
    _, (dx_ref,) = eager_grads(leaky_relu, g, [x], (0.01,), torch.float32)
    torch.testing.assert_close(again.backward(g, x, 0.01), dx_ref)
    with pytest.raises(fuser.FuserError, match="not compiled for constants "
                       r"\[0.3\].*the package has"):
        again.forward(x, 0.3)
    # Saving again over it is allowed (it is a package).
    kernel.save(path)
    out = run_without_compiler(f'''
        import json, torch
        import fuser, fuser.torch as ft
        k = ft.load_elementwise({str(path)!r})
        print(json.dumps(k.fuser_kernels))
        try:
            k.forward(torch.randn(3), 0.5)
        except fuser.FuserError as e:
            assert "not compiled for constants [0.5]" in str(e), e
        else:
            raise AssertionError("compiled without a compiler")
        ''', tmp_path)
    assert json.loads(out.splitlines()[0]) == kernel.fuser_kernels


def test_load_with_fn_compiles_new_constants(cache, tmp_path):
    kernel = ft.elementwise(leaky_relu, example=(torch.empty(3), 0.1),
                            cache=cache)
    path = kernel.save(tmp_path / "leaky.fuser")
    again = ft.load_elementwise(path, fn=leaky_relu, cache=cache)
    again.compile(torch.empty(3), 0.3)
    assert sorted(again.fuser_kernels) == ["constants [0.1], float32",
                                           "constants [0.3], float32"]
    with pytest.raises(fuser.FuserError, match="not a fuser.torch.elementwise"):
        ft.load_elementwise(tmp_path)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "file.txt").write_text("x")
    with pytest.raises(fuser.FuserError, match="not overwriting"):
        kernel.save(tmp_path / "other")
