"""fuser.torch training modules under torch.distributed on 2 GPUs: torchrun
starts test/gpu/Inputs/distributed_train.py, one process per GPU, which
trains W2 and W3 (small and real sizes) for 3 SGD steps through fuser's
kernels and eagerly, wrapped alike in DistributedDataParallel, in FSDP2's
fully_shard, and (DDP) under torch.compile(backend="fuser"); losses and
parameters must agree at atol = rtol = 1e-4 on every rank.

NVLink multicast stays off (NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_
MULTICAST=1, NVSHMEM_DISABLE_NVLS=1): a program that uses it can take the
host's shared GPUs out of service. Skipped with fewer than 2 GPUs.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from gpu_util import ARTIFACTS

INPUTS = Path(__file__).parent / "Inputs"
INDEX = ARTIFACTS / "torch" / "index.json"
sys.path.insert(0, str(INPUTS))
from distributed_train import NO_MULTICAST  # noqa: E402

if torch.cuda.device_count() < 2:
    pytest.skip("needs 2 GPUs (nvidia-h200-x2)", allow_module_level=True)
if not INDEX.exists() or "training" not in json.loads(INDEX.read_text()):
    pytest.skip("no training packages: run scripts/build-torch-artifacts.py",
                allow_module_level=True)


def torchrun(*args, timeout=600):
    """Runs the worker on 2 GPUs; returns its records."""
    env = dict(os.environ, **NO_MULTICAST)
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
         "--master-port", "29517", str(INPUTS / "distributed_train.py"), *args],
        env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    return [json.loads(line.split(" ", 1)[1])
            for line in done.stdout.splitlines()
            if line.startswith("[distributed] ")]


def dynamo_forms(names):
    """DDP under torch.compile(backend="fuser") where the graph packages of
    these models exist (DDP's graph is the model's: one bucket boundary
    inside a single linear splits nothing)."""
    have = json.loads(INDEX.read_text()).get("dynamo", {})
    return ["dynamo-ddp"] if all(n in have for n in names) else []


@pytest.mark.parametrize("names", [["w2_small", "w3_small"], ["w2", "w3"]],
                         ids=["small", "real"])
def test_training_matches_eager_on_every_rank(names):
    forms = ["ddp", "fsdp2"] + dynamo_forms(names)
    records = torchrun("--names", *names, "--forms", *forms)
    assert len(records) == len(names) * len(forms)
    for r in records:
        print(f"[gpu tests] distributed {r['name']} {r['form']} x{r['ranks']}: "
              f"losses {r['losses']}; max abs difference to eager "
              f"{r['max_abs_diff']:.3e}")
        assert r["allclose_1e-4"], r
