"""How a compiled module's call reaches its kernels: straight to
_fuser_call when nothing of nn.Module.__call__ applies, through
nn.Module.__call__ (hooks, then forward) when something does, and through
forward whenever a subclass's forward does more than pass its arguments on.

Skipped without torch, torch-mlir or the compiler tools; `make test` runs
these under the project venv."""

import pytest

from torch_frontend_util import require_front_end

torch = require_front_end()

import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import fuser.torch as ft  # noqa: E402


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 8)

    def forward(self, x):
        return F.relu(self.lin(x))


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    c = ft.compile(Net(), torch.randn(4, 16),
                   cache=tmp_path_factory.mktemp("fuser-cache"))
    return c.fuser_package


def make(package, cls=None):
    """A compiled module whose kernels are replaced by a recorder."""
    base = ft.CompiledModule if cls is None else cls
    c = base(Net(), package)
    calls = []
    c.__dict__["_fuser_call"] = lambda args, kwargs: (
        calls.append((args, kwargs)) or "kernels")
    return c, calls


def test_a_plain_call_goes_straight_to_the_kernels(package, monkeypatch):
    c, calls = make(package)
    monkeypatch.setattr(nn.Module, "__call__",
                        lambda *a, **k: pytest.fail("nn.Module.__call__ ran"))
    x = torch.randn(4, 16)
    assert c(x) == "kernels" and calls == [((x,), {})]


def test_hooks_run_as_for_any_module(package):
    c, calls = make(package)
    seen = []
    pre = c.register_forward_pre_hook(lambda m, args: seen.append("pre"))
    post = c.register_forward_hook(lambda m, args, out: out + " hooked")
    assert c(torch.randn(4, 16)) == "kernels hooked" and seen == ["pre"]
    pre.remove()
    post.remove()
    assert c(torch.randn(4, 16)) == "kernels" and len(calls) == 2


def test_global_hooks_run(package):
    c, _ = make(package)
    handle = nn.modules.module.register_module_forward_hook(
        lambda m, args, out: out + " global" if m is c else out)
    try:
        assert c(torch.randn(4, 16)) == "kernels global"
    finally:
        handle.remove()
    assert c(torch.randn(4, 16)) == "kernels"


def test_a_forward_that_does_more_runs(package):
    class Doubled(ft.CompiledModule):
        def forward(self, x):
            return self._fuser_call((x,), {}) * 2

    c, calls = make(package, Doubled)
    assert c(torch.randn(4, 16)) == "kernelskernels" and len(calls) == 1


def test_a_marked_forward_is_skipped(package):
    class Marked(ft.CompiledModule):
        @ft.compiled_forward
        def forward(self, x):
            pytest.fail("a marked forward ran")

    c, calls = make(package, Marked)
    assert c(torch.randn(4, 16)) == "kernels" and len(calls) == 1


def test_kernel_arguments_are_dense_and_aligned():
    """What the kernels take: a tensor as it is when dense at a 16-byte
    aligned address; else a dense copy (a transposed view, a view 4 bytes
    into its storage), equal to it."""
    from fuser.torch._runtime.autograd import dense_aligned

    aligned = torch.randn(64)
    assert aligned.data_ptr() % 16 == 0
    shifted = torch.randn(1025)[1:]
    transposed = torch.randn(8, 4).t()
    kept, shifted_copy, transposed_copy = dense_aligned(
        [aligned, shifted, transposed])
    assert kept is aligned
    for view, copy in ((shifted, shifted_copy), (transposed, transposed_copy)):
        assert copy.is_contiguous() and copy.data_ptr() % 16 == 0
        assert copy.data_ptr() != view.data_ptr()
        assert torch.equal(copy, view)
