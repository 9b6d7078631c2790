"""One training step of timm's ResNet basic block (base size, train mode)
eagerly, through torch.compile(backend="eager") (dynamo alone) and through
torch.compile(backend="fuser") from the graph packages: 5 interleaved
rounds of bench/suite.py's time_steps (20 steps each), the mean of the
rounds' means. With BatchNorm's batch statistics left to PyTorch nothing of
this block runs through fuser, so the three differ by dynamo's cost alone.

    PYTHONPATH=build-gpu/python_packages FUSER_ARTIFACTS=.artifacts \\
        python3 bench/experiments/dynamo_cost.py
"""

import copy
import os
import sys
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))
import bench  # noqa: E402
import model_blocks  # noqa: E402
from suite import time_steps  # noqa: E402

NAME = "timm_resnet_basic_block_base"
ROUNDS = 5


def main():
    warnings.filterwarnings("ignore")
    # The graph packages scripts/build-torch-artifacts.py wrote.
    os.environ["FUSER_CACHE_DIR"] = str(bench.ARTIFACTS / "torch" / "dynamo")
    import fuser.torch.dynamo  # noqa: F401 - registers "fuser"

    torch.manual_seed(0)
    model = model_blocks.build(NAME, seed=None).cuda().train()
    x = torch.rand(model_blocks.shape(NAME), device="cuda")
    with torch.no_grad():
        target = torch.randn_like(model(x))
    nets = {
        "eager": copy.deepcopy(model),
        "dynamo eager backend": torch.compile(copy.deepcopy(model), backend="eager",
                                              dynamic=False),
        "fuser backend": torch.compile(copy.deepcopy(model), backend="fuser", dynamic=False,
                                       options={"fallback": False}),
    }

    def step(net):
        torch.nn.functional.mse_loss(net(x), target).backward()

    means = {k: [] for k in nets}
    for _ in range(ROUNDS):
        for k, net in nets.items():
            means[k].append(time_steps(lambda net=net: step(net), list(net.parameters()),
                                       20)["mean_ms"])
    for k, v in means.items():
        print(f"[dyn] {k}: mean of rounds {sum(v) / len(v):.4f} ms "
              f"({', '.join(f'{t:.3f}' for t in v)})")


if __name__ == "__main__":
    main()
