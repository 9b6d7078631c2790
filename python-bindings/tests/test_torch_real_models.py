"""The real-model corpus on the CPU: blocks of transformers and timm models
(test/gpu/Inputs/model_blocks.py: BERT, GPT-2, LLaMA, ViT layers, timm's
ViT block and MLPs, from configs with random weights).

Each block
- compiles through fuser.torch.compile, forward and training, with no
  fallback (every op in fuser's kernels);
- exported on meta tensors with its weights as arguments, its slices,
  concatenations and pads as gathers (fuser-slices-to-gathers), runs on
  the CPU reference lowering (mlir-runner) and matches eager at
  atol = rtol = 1e-4.

bench/real_models.py runs the compiled kernels on the GPU against eager.
Skipped without torch, torch-mlir, transformers, timm or the tools;
`make test` runs it under the project venv."""

import pathlib
import subprocess
import sys

import pytest

from torch_frontend_util import require_front_end

torch = require_front_end()
pytest.importorskip("transformers")
pytest.importorskip("timm")

import fuser.torch as ft  # noqa: E402
from fuser.compiler import find_tools  # noqa: E402
from test_torch_corpus import _driver, _run_cpu, exports  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test/gpu/Inputs"))
import model_blocks  # noqa: E402

NAMES = model_blocks.small()


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("fuser-cache")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("training", [False, True], ids=["forward", "training"])
def test_compiles_without_fallback(name, training, cache):
    model = model_blocks.build(name)
    if training:
        model.train()
    shape = model_blocks.shape(name)
    compiled = ft.compile(model, torch.randn(*shape), cache=cache,
                          fallback=False, training=training)
    assert compiled.fuser_fallback is None
    kernels = [launch["kernel"] for v in compiled.fuser_package.variants
               for f in v.artifact.manifest_dict["functions"]
               for launch in f["launches"]]
    assert kernels
    # The report says what fused: remarks, each at a line of the model.
    assert compiled.fuser_remarks
    assert all(r.file for r in compiled.fuser_remarks)


def _run_with_gathers(name, text, inputs):
    """The export's slices, concatenations and pads as gathers, then
    test_torch_corpus's run on the CPU reference lowering."""
    opt, _ = find_tools()
    gathers = subprocess.run(
        [opt, "-", "--pass-pipeline=builtin.module(func.func("
         "fuser-slices-to-gathers))"], input=text, capture_output=True,
        text=True, check=False)
    assert gathers.returncode == 0, f"{name}: {gathers.stderr[-2000:]}"
    for view in ("tensor.extract_slice", "tensor.insert_slice",
                 "tensor.concat", "tensor.pad"):
        assert view not in gathers.stdout, f"{name}: {view} left"
    return _run_cpu(name, gathers.stdout, inputs)


class _WeightsAsArguments(exports.WithParams):
    """WithParams with the module outside the registry, so that the export
    has no buffers of its own: torch-mlir finds no state for non-persistent
    ones (LLaMA's inv_freq)."""

    def __init__(self, module):
        super().__init__(module)
        del self._modules["module"]
        self.__dict__["module"] = module


@pytest.mark.parametrize("name", NAMES)
def test_cpu_reference_matches_eager(name):
    from fuser.torch._export.mlir import import_program

    model = _WeightsAsArguments(model_blocks.build(name))
    shape = model_blocks.shape(name)
    gen = torch.Generator().manual_seed(sum(map(ord, name)))
    inputs = [torch.randn(*shape, generator=gen)] + model.weights()
    inputs = [t.detach() for t in inputs]
    with torch.no_grad():
        expected = model(*inputs)
    # Exported on meta tensors, as fuser.torch.compile does first (on real
    # CPU tensors, PyTorch's decomposition of GPT-2's attention fails).
    program = torch.export.export(model, tuple(t.to("meta") for t in inputs))
    text, _ = import_program(program)
    # Printed again without its locations, for _driver to append to.
    opt, _ = find_tools()
    text = subprocess.run([opt, "-"], input=text, capture_output=True,
                          text=True, check=True).stdout
    got = _run_with_gathers(name, _driver(text, inputs), inputs)
    assert len(got) == 1
    values_shape, values = got[0]
    assert values_shape == list(expected.shape)
    have = torch.tensor(values, dtype=torch.float64).reshape(expected.shape)
    # printMemrefF32 prints 6 significant digits.
    torch.testing.assert_close(have, expected.double(), atol=1e-4, rtol=1e-4,
                               msg=lambda m: f"{name}: {m}")
