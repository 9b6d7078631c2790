"""The torch-mlir corpus on the CPU against PyTorch eager (issue 13).

Every small export that scripts/export-torch-inputs.py writes (the committed
test/Pipelines/Inputs/torch_*.mlir the lit suite counts kernels on) runs
through fuser's fusion and the CPU reference lowering
(`--fuser-cpu-reference-pipeline`, as the lit cpu-equivalence tests do) on
mlir-runner, with inputs drawn here, and must match the export's own PyTorch
model run eagerly on the same inputs. This proves that the fused groups
compute what PyTorch computes, with no GPU.

Skipped without torch, torch-mlir (the export script imports it), fuser's
tools or mlir-runner; `make test` runs it under the project venv."""

import importlib.util
import inspect
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from torch_frontend_util import require_front_end

torch = require_front_end()

from fuser.compiler import find_tools  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
INPUTS = ROOT / "test/Pipelines/Inputs"
LLVM = pathlib.Path(os.environ.get("FUSER_LLVM_PREFIX", "/usr/lib/llvm-22"))
RUNNER = shutil.which("mlir-runner") or str(LLVM / "bin/mlir-runner")
if not os.path.exists(RUNNER):
    pytest.skip("mlir-runner is not installed", allow_module_level=True)
RUNNER_LIBS = ",".join(str(LLVM / "lib" / f"lib{n}.so")
                       for n in ("mlir_runner_utils", "mlir_c_runner_utils"))

# The export script, imported for its models (it needs torch_mlir).
_spec = importlib.util.spec_from_file_location(
    "export_torch_inputs", ROOT / "scripts/export-torch-inputs.py")
exports = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(exports)

# Exports small enough to run on the CPU in a moment (W2 and W3 at their real
# 8192 sizes are left to the GPU tests).
MAX_ELEMENTS = 1 << 16
CASES = [e for e in exports.EXPORTS
         if all(not isinstance(t, torch.Tensor) or t.numel() <= MAX_ELEMENTS
                for t in e[2])]
# Where a dynamic batch is exported, run another batch than the example's.
DYNAMIC_BATCH = 5

_MLIR_TYPES = {torch.float32: "f32", torch.float64: "f64", torch.int64: "i64",
               torch.bool: "i1"}


def _real_inputs(name, model, inputs, dynamic):
    """Concrete CPU inputs shaped like the export's example inputs, the
    dynamic dims set to DYNAMIC_BATCH. Seeded per model."""
    gen = torch.Generator().manual_seed(sum(map(ord, name)))
    # forward's parameter names -> positions (forward(x, *weights) too).
    params = list(inspect.signature(model.forward).parameters)
    dyn_dims = {}
    for arg, spec in (dynamic or {}).items():
        if isinstance(spec, dict) and arg in params:
            dyn_dims[params.index(arg)] = set(spec)
    out = []
    for i, t in enumerate(inputs):
        if not isinstance(t, torch.Tensor):
            out.append(t)
            continue
        shape = [DYNAMIC_BATCH if d in dyn_dims.get(i, ()) else s
                 for d, s in enumerate(t.shape)]
        if not t.dtype.is_floating_point:  # class targets of the scores
            bound = getattr(model, "index_bound", None) or out[0].shape[-1]
            out.append(exports.class_targets(shape, bound, gen))
            continue
        out.append(torch.randn(*shape, generator=gen))
    return out


def _dense(t):
    """An MLIR constant holding `t` exactly (raw little-endian bytes)."""
    ty = f"tensor<{'x'.join(map(str, t.shape))}x{_MLIR_TYPES[t.dtype]}>"
    if t.dim() == 0:
        ty = f"tensor<{_MLIR_TYPES[t.dtype]}>"
    raw = t.contiguous().numpy().tobytes().hex().upper()
    return f'arith.constant dense<"0x{raw}"> : {ty}', ty


def _driver(export_text, inputs):
    """The export with a @fuser_driver that calls its @main on `inputs` and
    prints each result with printMemrefF32."""
    sig = re.search(r"func\.func @main\((.*?)\) -> (.*?) \{", export_text)
    assert sig, "no @main in the export"
    arg_types = [a.split(": ", 1)[1].strip() for a in
                 re.split(r",\s*(?=%arg\d+:)", sig.group(1))]
    results = sig.group(2).strip()
    result_types = ([r.strip() for r in results[1:-1].split(",")]
                    if results.startswith("(") else [results])
    lines = ["  func.func private @printMemrefF32(memref<*xf32>)",
             "  func.func @fuser_driver() {"]
    args = []
    for i, (t, ty) in enumerate(zip(inputs, arg_types)):
        if not isinstance(t, torch.Tensor):
            lines.append(f"    %in{i} = arith.constant {float(t)!r} : {ty}")
            args.append(f"%in{i}")
            continue
        const, static_ty = _dense(t)
        lines.append(f"    %c{i} = {const}")
        lines.append(f"    %in{i} = tensor.cast %c{i} : {static_ty} to {ty}")
        args.append(f"%in{i}")
    outs = ", ".join(f"%r{i}" for i in range(len(result_types)))
    lines.append(f"    {outs} = func.call @main({', '.join(args)}) : "
                 f"({', '.join(arg_types)}) -> ({', '.join(result_types)})")
    for i, ty in enumerate(result_types):
        mem = ty.replace("tensor<", "memref<", 1)
        lines.append(f"    %m{i} = bufferization.to_buffer %r{i} : {ty} to {mem}")
        lines.append(f"    %u{i} = memref.cast %m{i} : {mem} to memref<*xf32>")
        lines.append(f"    func.call @printMemrefF32(%u{i}) : "
                     "(memref<*xf32>) -> ()")
    lines += ["    return", "  }"]
    body = export_text.rstrip()
    assert body.endswith("}"), "the export does not end its module"
    return body[:-1] + "\n".join(lines) + "\n}\n"


_NUM = re.compile(r"-?(?:nan|inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?)")


def _printed(text):
    """[(sizes, values)] of each printMemrefF32 in `text`."""
    out = []
    for block in text.split("Unranked Memref")[1:]:
        sizes = re.search(r"sizes = \[([^\]]*)\]", block).group(1)
        shape = [int(s) for s in sizes.split(",") if s.strip()]
        data = block.split("data =", 1)[1]
        out.append((shape, [float(x) for x in _NUM.findall(data)]))
    return out


def _run_cpu(name, text, inputs):
    opt, _ = find_tools()
    lowered = subprocess.run(
        [opt, "-", "--fuser-cpu-reference-pipeline"], input=text,
        capture_output=True, text=True, check=False)
    assert lowered.returncode == 0, f"{name}: {lowered.stderr[-2000:]}"
    ran = subprocess.run(
        [RUNNER, "-e", "fuser_driver", "-entry-point-result=void",
         f"-shared-libs={RUNNER_LIBS}"], input=lowered.stdout,
        capture_output=True, text=True, check=False)
    assert ran.returncode == 0, f"{name}: {ran.stderr[-2000:]}"
    return _printed(ran.stdout)


@pytest.mark.parametrize("case", CASES, ids=[c[0][:-5] for c in CASES])
def test_corpus_model_matches_eager(case):
    name, model, example, dynamic = case
    text = (INPUTS / name).read_text()
    inputs = _real_inputs(name, model, example, dynamic)
    with torch.no_grad():
        expected = model(*inputs)
    if isinstance(expected, torch.Tensor):
        expected = [expected]
    got = _run_cpu(name, _driver(text, inputs), inputs)
    assert len(got) == len(expected)
    for (shape, values), want in zip(got, expected):
        assert shape == list(want.shape), (name, shape, want.shape)
        have = torch.tensor(values, dtype=torch.float64).reshape(want.shape)
        # printMemrefF32 prints 6 significant digits.
        torch.testing.assert_close(have, want.double(), atol=1e-4,
                                   rtol=1e-4, msg=lambda m: f"{name}: {m}")
