"""Host constants on the GPU (issue 12): scalars folded into kernels, tensor
constants carried by the module, from Python and from C.

Input: test/gpu/Inputs/host_constants.mlir. Its weights are parsed from that
file here, so the references do not trust the artifact's own copy.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from gpu_util import ARTIFACTS, check, load, poisoned, randn

SOURCE = Path(__file__).parent / "Inputs" / "host_constants.mlir"
TOL = 1e-5  # fp32 against float64; the GEMM (K = 16) runs on fp64 tensor cores


def dense(name):
    """The dense<...> literal of `%name = arith.constant` in the source."""
    text = SOURCE.read_text()
    m = re.search(r"%" + name + r" = arith\.constant dense<(\[.*?\])> : tensor<([0-9x]+)xf32>",
                  text, re.S)
    assert m, f"{name} not found in {SOURCE}"
    return torch.tensor(json.loads(m.group(1)), dtype=torch.float64, device="cuda")


def leaky_scaled_ref(x):
    w = torch.tensor([1.0, -2.0, 0.5, 3.0, -0.25, 4.0, -1.5, 0.125],
                     dtype=torch.float64, device="cuda")
    # The slope is the f32 constant 0.01 (as f32), the scale 2.5.
    return F.leaky_relu(x.double() * w * 2.5, float(torch.tensor(0.01, dtype=torch.float32)))


def linear_ref(x):
    return x.double() @ dense("weight").T + dense("bias")


def manifest(stem):
    return json.loads((ARTIFACTS / f"{stem}.manifest.json").read_text())


def test_scalars_are_immediates_and_weights_are_constants():
    """No scalar reaches host memory: the only constant buffers are the two
    tensors that must stay data in each function, and each is one kernel."""
    mod = load("host_constants")  # skips when the artifacts are missing
    fns = {f["name"]: f for f in manifest("host_constants")["functions"]}
    for name, shapes in [("leaky_scaled", [[8]]), ("linear_constant_weight", [[8, 16], [8]])]:
        fn = fns[name]
        constants = [b for b in fn["buffers"] if b["kind"] == "constant"]
        assert sorted(c["shape"] for c in constants) == sorted(shapes), name
        assert len(fn["launches"]) == 1, name
        # No scalar f32/f64 kernel parameter is left for the slope or scale.
        kinds = [a["kind"] for a in fn["launches"][0]["args"]]
        assert "f32" not in kinds, (name, kinds)
    assert mod is not None


@pytest.mark.parametrize("rows", [1, 37, 1000])
def test_leaky_scaled(rows, generator):
    mod = load("host_constants")
    x = randn((rows, 8), generator)
    out = poisoned((rows, 8))
    mod.leaky_scaled(x, out=out)
    check(f"host_constants.leaky_scaled[{rows}]", out, leaky_scaled_ref(x), TOL)


@pytest.mark.parametrize("rows", [1, 37, 515])
def test_linear_constant_weight(rows, generator):
    mod = load("host_constants")
    x = randn((rows, 16), generator)
    out = poisoned((rows, 8))
    mod.linear_constant_weight(x, out=out)
    check(f"host_constants.linear_constant_weight[{rows}]", out, linear_ref(x), TOL)
    # A second call reuses the uploaded constants.
    again = mod.linear_constant_weight(x)
    assert torch.equal(again, out)


@pytest.mark.parametrize("rows", [1, 7, 4096])
def test_torch_mlir_leaky_relu_export(rows, generator):
    """torch-mlir's export of F.leaky_relu(x, 0.01) (a 0-d zero and an f64
    slope): one kernel, the constants as immediates, PyTorch's values."""
    mod = load("torch_leaky_relu_dynamic")
    fn = manifest("torch_leaky_relu_dynamic")["functions"][0]
    assert len(fn["launches"]) == 1
    assert not [b for b in fn["buffers"] if b["kind"] == "constant"]
    x = randn((rows, 1000), generator)
    out = poisoned((rows, 1000))
    mod.main(x, out=out)
    check(f"torch leaky_relu export[{rows}]", out, F.leaky_relu(x.double(), 0.01), TOL)
    assert torch.equal(out, F.leaky_relu(x, 0.01))


def test_from_c(tmp_path, generator):
    """The generated header embeds the constants and uploads them with the
    module: a C99 program gets the same results."""
    header = ARTIFACTS / "host_constants.h"
    cc = shutil.which("cc") or shutil.which("gcc")
    cuda = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    if not header.exists() or cc is None or not (cuda / "include" / "cuda.h").exists():
        pytest.skip("needs the header artifact, a C compiler and cuda.h")
    libdirs = [d for d in (cuda / "lib64" / "stubs", cuda / "lib64") if d.exists()]
    exe = tmp_path / "run_host_constants"
    subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror",
                    "-isystem", str(cuda / "include"), "-I", str(ARTIFACTS),
                    str(Path(__file__).parent / "Inputs" / "run_host_constants.c"),
                    "-o", str(exe)] + [f"-L{d}" for d in libdirs] + ["-lcuda"],
                   check=True)
    rows = 37
    x8 = randn((rows, 8), generator)
    x16 = randn((rows, 16), generator)
    (tmp_path / "x8.bin").write_bytes(x8.cpu().numpy().tobytes())
    (tmp_path / "x16.bin").write_bytes(x16.cpu().numpy().tobytes())
    run = subprocess.run([str(exe), str(rows)] + [str(tmp_path / f) for f in
                         ("x8.bin", "x16.bin", "y8.bin", "y16.bin")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr + run.stdout
    read = lambda f: torch.frombuffer(bytearray((tmp_path / f).read_bytes()),
                                      dtype=torch.float32).reshape(rows, 8).cuda()
    check("host_constants from C: leaky_scaled", read("y8.bin"), leaky_scaled_ref(x8), TOL)
    check("host_constants from C: linear", read("y16.bin"), linear_ref(x16), TOL)
