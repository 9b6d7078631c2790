"""GPU tests: run fuser's compiled examples against float64 PyTorch references.

They need a CUDA GPU, PyTorch, the runtime bindings on PYTHONPATH and the
artifacts that scripts/build-gpu-artifacts.sh compiles (FUSER_ARTIFACTS,
default .artifacts/). bench/gpu-check.sh sets all of this up.
"""

import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device visible to PyTorch", allow_module_level=True)

@pytest.fixture(scope="session")
def generator():
    # Fresh inputs each test run: the seed is printed so a failure can be
    # reproduced.
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"\n[gpu tests] seed {seed}")
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    return g




@pytest.fixture
def fp32_reference():
    """Eager fp32 as the users' reference: no TF32 in PyTorch's matmuls and
    convolutions while the test runs (tests opt in with
    `pytestmark = pytest.mark.usefixtures("fp32_reference")`)."""
    saved = (torch.backends.cuda.matmul.allow_tf32,
             torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved
