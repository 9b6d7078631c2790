"""The torch-mlir corpus on the GPU against PyTorch eager (issue 13).

Every export of scripts/export-torch-inputs.py (test/Pipelines/Inputs/
torch_*.mlir, the corpus the lit suite counts kernels on and
python-bindings/tests/test_torch_corpus.py runs on the CPU) compiled with the
default options into .artifacts/corpus/ by scripts/build-gpu-artifacts.sh,
run through fuser's runtime on fresh inputs of both signs and compared with
the export's own PyTorch model run eagerly on the GPU (atol = rtol = 1e-4;
dynamic batches at 5 and 1027). The models import without torch-mlir.
"""

import importlib.util
import inspect
import math
import pathlib

import pytest
import torch

from gpu_util import ARTIFACTS, check

import fuser

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "export_torch_inputs", ROOT / "scripts/export-torch-inputs.py")
exports = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(exports)

TOL = 1e-4
CASES = exports.EXPORTS


def _inputs(name, model, example, dynamic, batch):
    """GPU inputs shaped like the export's example, dynamic dims at `batch`;
    weights scaled like nn.Linear's so that values stay O(1)."""
    gen = torch.Generator(device="cuda").manual_seed(sum(map(ord, name)) + batch)
    params = list(inspect.signature(model.forward).parameters)
    dyn = {}
    for arg, spec in (dynamic or {}).items():
        if isinstance(spec, dict) and arg in params:
            dyn[params.index(arg)] = set(spec)
    out = []
    for i, t in enumerate(example):
        if not isinstance(t, torch.Tensor):
            out.append(t)
            continue
        shape = [batch if d in dyn.get(i, ()) else s for d, s in enumerate(t.shape)]
        scale = 1.0 / math.sqrt(shape[-1]) if i > 0 and len(shape) == 2 else 1.0
        out.append(torch.randn(*shape, device="cuda", generator=gen) * scale)
    return out


@pytest.mark.parametrize("case", CASES, ids=[c[0][:-5] for c in CASES])
def test_corpus_model_matches_eager(case):
    name, model, example, dynamic = case
    stem = name[:-5]
    ptx = ARTIFACTS / "corpus" / f"{stem}.ptx"
    if not ptx.exists():
        pytest.skip(f"{ptx} missing: run scripts/build-gpu-artifacts.sh")
    numel = sum(t.numel() for t in example if isinstance(t, torch.Tensor))
    if numel > (1 << 26):
        pytest.skip("W2/W3 at their real sizes: test_split_tf32.py, test_torch_frontend.py")
    if any(True for _ in model.parameters()) or any(True for _ in model.buffers()):
        pytest.skip("parameters as module state: their argument order is fuser.torch's "
                    "(test_torch_frontend.py)")
    mod = fuser.load(fuser.Artifact.from_files(ptx, ptx.with_suffix(".manifest.json")))
    for batch in ((5, 1027) if dynamic else (None,)):
        inputs = _inputs(name, model, example, dynamic, batch or 0)
        with torch.no_grad():
            want = model(*inputs)
        got = mod.main(*[t for t in inputs if isinstance(t, torch.Tensor)])
        want = [want] if isinstance(want, torch.Tensor) else list(want)
        got = [got] if isinstance(got, torch.Tensor) else list(got)
        assert len(got) == len(want), name
        for i, (g, w) in enumerate(zip(got, want)):
            check(f"corpus {stem} batch={batch} result {i}", g.float(), w.double(), TOL)
