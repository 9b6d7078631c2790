"""fuser.torch.save / load: packages (directory and zip) that load with torch
and fuser's runtime alone. The loading side runs in a fresh interpreter where
importing torch_mlir fails and the compiler tools cannot be found, as on the
GPU machines.

Skipped without torch, torch-mlir or the compiler tools (compiling the
packages needs them); `make test` runs these under the project venv."""

import zipfile

import pytest

from torch_frontend_util import require_front_end, run_without_compiler

torch = require_front_end()

import fuser  # noqa: E402

import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import fuser.torch as ft  # noqa: E402

# Prepended to the code a fresh interpreter runs: torch_mlir cannot be
# imported there, and the tools are not found (FUSER_TOOLS_DIR, below).






# The same model in the test and in the fresh interpreter.
MODEL_SOURCE = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(32, 64)
        self.register_buffer("shift", torch.arange(64, dtype=torch.float32))

    def forward(self, x, slope: float = 0.1):
        return F.leaky_relu(self.lin(x), slope) + self.shift
'''
namespace: dict = {}
exec(MODEL_SOURCE, namespace)
Net = namespace["Net"]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    cache = tmp_path_factory.mktemp("fuser-cache")
    model = Net()
    c = ft.compile(model, torch.randn(8, 32), dynamic="batch", cache=cache)
    ft.add_variant(c, torch.randn(16, 32))  # A static one as well.
    return c


def test_directory_and_zip_layout(compiled, tmp_path):
    d = ft.save(compiled, tmp_path / "net.fuser")
    files = sorted(p.relative_to(d).as_posix() for p in d.rglob("*")
                   if p.is_file())
    assert files == ["fuser-torch.json",
                     "kernels/dynamic.manifest.json", "kernels/dynamic.ptx",
                     "kernels/static.manifest.json", "kernels/static.ptx"]
    z = ft.save(compiled, tmp_path / "net.zip", weights=True)
    with zipfile.ZipFile(z) as f:
        assert sorted(f.namelist()) == files + ["weights.pt"]
    # Saving again replaces the package; a directory that is not one is
    # left alone.
    ft.save(compiled, d)
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(fuser.FuserError, match="not a fuser.torch package"):
        ft.save(compiled, other)
    assert (other / "keep.txt").read_text() == "mine"


def test_load_round_trip_in_process(compiled, tmp_path):
    path = ft.save(compiled, tmp_path / "net.fuser")
    model = Net()
    loaded = ft.load(path, module=model)
    assert loaded.fuser_kernels == compiled.fuser_kernels
    assert loaded.fuser_package.spec == compiled.fuser_package.spec
    for a, b in zip(loaded.fuser_package.variants,
                    compiled.fuser_package.variants):
        assert a.artifact == b.artifact and a.info == b.info
    assert loaded.lin is model.lin
    assert [str(r) for r in loaded.fuser_remarks] == [
        str(r) for r in compiled.fuser_remarks]


def test_load_without_torch_mlir(compiled, tmp_path):
    ft.save(compiled, tmp_path / "net.fuser")
    ft.save(compiled, tmp_path / "net.zip", weights=True)
    expected_kernels = compiled.fuser_kernels
    state = {k: v.clone() for k, v in compiled.state_dict().items()}
    torch.save(state, tmp_path / "expected.pt")
    out = run_without_compiler(MODEL_SOURCE + f'''
import inspect
import fuser, fuser.torch as ft
model = Net()
c = ft.load("net.fuser", module=model)
assert c.fuser_kernels == {expected_kernels!r}, c.fuser_kernels
assert list(inspect.signature(c.forward).parameters) == ["x", "slope"]
assert list(c.state_dict()) == list(model.state_dict()) == [
    "shift", "lin.weight", "lin.bias"]
assert c.lin is model.lin
# Without a module: the saved weights, under the same names.
z = ft.load("net.zip")
expected = torch.load("expected.pt")
assert list(z.state_dict()) == list(expected)
for k, v in expected.items():
    assert torch.equal(z.state_dict()[k], v), k
# The kernels' checks still run (no GPU here: the CPU tensors are refused).
try:
    z(torch.randn(5, 32))
except fuser.FuserError as e:
    assert "is on the CPU" in str(e), e
else:
    raise AssertionError("a CPU call ran")
# A shape no variant takes, and no compiler to make one: a readable error.
try:
    z(torch.randn(5, 31))
except fuser.FuserError as e:
    assert "no compiled variant takes" in str(e), e
    print(e)
''', tmp_path)
    assert "x: f32[5, 31]" in out and "dynamic: " in out


def test_load_checks_the_module(compiled, tmp_path):
    path = ft.save(compiled, tmp_path / "net.fuser")

    class Other(nn.Module):
        def __init__(self, n_out=64):
            super().__init__()
            self.lin = nn.Linear(32, n_out)

        def forward(self, x):
            return F.relu(self.lin(x))

    with pytest.raises(fuser.FuserError, match="lacks shift"):
        ft.load(path, module=Other())
    with pytest.raises(fuser.FuserError, match="'lin.weight' has shape"):
        m = Net()
        m.lin = nn.Linear(32, 63)
        ft.load(path, module=m)
    with pytest.raises(FileNotFoundError):
        ft.load(tmp_path / "missing")
    with pytest.raises(fuser.FuserError, match="not a fuser.torch package"):
        (tmp_path / "empty").mkdir()
        ft.load(tmp_path / "empty")


def test_load_without_weights_gives_zeros(compiled, tmp_path):
    path = ft.save(compiled, tmp_path / "net.fuser")
    c = ft.load(path)
    assert {k: tuple(v.shape) for k, v in c.state_dict().items()} == {
        "lin.weight": (64, 32), "lin.bias": (64,), "shift": (64,)}
    assert all(not v.any() for v in c.state_dict().values())
    c.load_state_dict(compiled.state_dict())
    assert torch.equal(c.lin.weight, compiled.lin.weight)
