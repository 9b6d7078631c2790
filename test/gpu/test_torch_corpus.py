"""The torch-mlir corpus on the GPU against PyTorch eager (issue 13).

Every export of scripts/export-torch-inputs.py (test/Pipelines/Inputs/
torch_*.mlir, the corpus the lit suite counts kernels on and
python-bindings/tests/test_torch_corpus.py runs on the CPU) compiled with the
default options into .artifacts/corpus/ by scripts/build-gpu-artifacts.sh,
run through fuser's runtime on fresh inputs of both signs and compared with
the export's own PyTorch model run eagerly in fp32 (no TF32) on the GPU
(atol = rtol = 1e-4; dynamic batches at 1, 5 and 1027). The models import
without torch-mlir.

Models with module parameters are exported through the script's WithParams:
@main takes the input, then the parameters and buffers in named_parameters()
then named_buffers() order (WithParams.names), as the example inputs list
them. Here such a model is built for real: its meta-device module
materialized on the CPU under a fixed seed with its own initialisation
(nn.Linear's), norm affines drawn around 1 and 0 so that they matter, then
moved to the GPU; the kernels get the input and those tensors in that order,
the reference is the module itself called on the input.
"""

import copy
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
DYNAMIC_BATCHES = (1, 5, 1027)

# Norm layers whose reset_parameters leaves weight = 1 and bias = 0.
_NORMS = (torch.nn.GroupNorm, torch.nn.LayerNorm,
          torch.nn.modules.batchnorm._NormBase)


def _seed(name, salt=0):
    return sum(map(ord, name)) + salt


pytestmark = pytest.mark.usefixtures("fp32_reference")


def has_weights(model):
    return isinstance(model, exports.WithParams)


def real_module(name, wrapped, device):
    """The module a WithParams export wraps, with real weights: its meta
    copy materialized on the CPU under a seed fixed per model, each
    submodule's reset_parameters (nn.Linear: kaiming-uniform, both signs),
    then norm weights U(0.5, 1.5) and biases U(-0.5, 0.5) (1 and 0 would
    hide a gamma or beta read wrongly); parameters of a module without
    reset_parameters (TransposedLeft) U(-b, b), b = 1/sqrt(first dim).
    Moved to `device`."""
    module = copy.deepcopy(wrapped.module).to_empty(device="cpu")
    with torch.random.fork_rng(devices=[]), torch.no_grad():
        torch.manual_seed(_seed(name))
        for m in module.modules():
            if hasattr(m, "reset_parameters"):
                m.reset_parameters()
            else:
                for p in m.parameters(recurse=False):
                    bound = 1.0 / math.sqrt(p.shape[0])
                    p.uniform_(-bound, bound)
            if isinstance(m, _NORMS):
                if isinstance(getattr(m, "weight", None), torch.nn.Parameter):
                    m.weight.uniform_(0.5, 1.5)
                if isinstance(getattr(m, "bias", None), torch.nn.Parameter):
                    m.bias.uniform_(-0.5, 0.5)
    for n, t in list(module.named_parameters()) + list(module.named_buffers()):
        assert torch.isfinite(t).all(), f"{name}: {n} left uninitialised"
    return module.to(device)


def _shape(model, example, dynamic, batch):
    """[arg index] -> shape: the example's, dynamic dims at `batch`."""
    params = list(inspect.signature(model.forward).parameters)
    dyn = {}
    for arg, spec in (dynamic or {}).items():
        if isinstance(spec, dict) and arg in params:
            dyn[params.index(arg)] = set(spec)
    return lambda i, t: [batch if d in dyn.get(i, ()) else s
                         for d, s in enumerate(t.shape)]


def case_inputs(case, batch, real=None, device="cuda"):
    """(reference, args, kernel_args) for one run: the eager model, its
    arguments, and the tensors @main takes, in its order. `real`: the
    real_module of a model with weights. Inputs are drawn per model and
    batch, both signs; weight arguments of weight-free models scaled like
    nn.Linear's so that values stay O(1)."""
    name, model, example, dynamic = case
    shape = _shape(model, example, dynamic, batch)
    gen = torch.Generator(device=device).manual_seed(_seed(name, batch))
    if has_weights(model):
        assert real is not None, name
        state = dict(real.named_parameters())
        state.update(real.named_buffers())
        weights = [state[n].detach() for n in model.names]
        assert len(weights) == len(example) - 1, name
        for n, w, e in zip(model.names, weights, example[1:]):
            assert w.shape == e.shape, f"{name}: {n} {tuple(w.shape)} != {tuple(e.shape)}"
        x = torch.randn(*shape(0, example[0]), device=device, generator=gen)
        return real, [x], [x, *weights]
    args = []
    for i, t in enumerate(example):
        if not isinstance(t, torch.Tensor):
            args.append(t)
            continue
        dims = shape(i, t)
        if not t.dtype.is_floating_point:  # class targets of the scores
            bound = getattr(model, "index_bound", None) or args[0].shape[-1]
            args.append(exports.class_targets(dims, bound, gen, device))
            continue
        scale = 1.0 / math.sqrt(dims[-1]) if i > 0 and len(dims) == 2 else 1.0
        args.append(torch.randn(*dims, device=device, generator=gen) * scale)
    return model, args, [t for t in args if isinstance(t, torch.Tensor)]


def batches(case):
    return DYNAMIC_BATCHES if case[3] else (0,)


@pytest.mark.parametrize("case", CASES, ids=[c[0][:-5] for c in CASES])
def test_corpus_model_matches_eager(case):
    name, model, example, dynamic = case
    stem = name[:-5]
    ptx = ARTIFACTS / "corpus" / f"{stem}.ptx"
    if not ptx.exists():
        pytest.skip(f"{ptx} missing: run scripts/build-gpu-artifacts.sh")
    mod = fuser.load(fuser.Artifact.from_files(ptx, ptx.with_suffix(".manifest.json")))
    real = real_module(name, model, "cuda") if has_weights(model) else None
    errors = {}
    for batch in batches(case):
        reference, args, kernel_args = case_inputs(case, batch, real)
        with torch.no_grad():
            want = reference(*args)
        got = mod.main(*kernel_args)
        want = [want] if isinstance(want, torch.Tensor) else list(want)
        got = [got] if isinstance(got, torch.Tensor) else list(got)
        assert len(got) == len(want), name
        label = f"batch={batch}" if dynamic else "static"
        for i, (g, w) in enumerate(zip(got, want)):
            errors[f"{label} result {i}"] = check(
                f"corpus {stem} {label} result {i}", g.float(), w.double(), TOL)
        del reference, args, kernel_args, want, got
    weights = "real weights" if has_weights(model) else "weight-free"
    print(f"[gpu tests] corpus {stem} ({weights}): max abs error "
          f"{max(errors.values()):.3e} ({', '.join(f'{k} {v:.1e}' for k, v in errors.items())})")
