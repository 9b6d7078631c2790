#!/usr/bin/env python3
"""Training steps on 2 GPUs: fuser's training modules against eager PyTorch,
wrapped alike in DistributedDataParallel and in FSDP2 (fully_shard), and
DDP under torch.compile(backend="fuser") where its graph packages exist.
One step: forward, MSE loss, backward, SGD step; each rank its own batch
(no grad); CUDA events on each rank, the L2 flushed before each step, a
barrier before it, the mean of --iters steps after 3 discarded; then the
steady state: --iters + 3 steps back to back between two events (the host
queueing ahead, as a training loop runs). The slower rank's time counts.
Runs test/gpu/Inputs/distributed_train.py under torchrun with NVLink
multicast off.

Usage (on a 2-GPU machine, after bench/gpu-check.sh built the runtime):
  PYTHONPATH=$PWD/build-gpu/python_packages FUSER_ARTIFACTS=$PWD/.artifacts \\
      python3 bench/distributed.py [--names w2 w3] [--forms ddp fsdp2] [--out FILE]
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))
from distributed_train import NO_MULTICAST  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--names", nargs="+", default=["w2", "w3"])
    ap.add_argument("--forms", nargs="+", default=["ddp", "fsdp2", "dynamo-ddp"])
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    import torch
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
         "--master-port", "29518", str(ROOT / "test/gpu/Inputs/distributed_train.py"),
         "--names", *args.names, "--forms", *args.forms, "--time", str(args.iters + 3)],
        env=dict(os.environ, **NO_MULTICAST), capture_output=True, text=True)
    if done.returncode:
        print(done.stdout[-3000:] + done.stderr[-6000:])
        return 1
    records = [json.loads(line.split(" ", 1)[1]) for line in done.stdout.splitlines()
               if line.startswith("[distributed] ")]
    lines = [f"# fuser training on 2 GPUs: {torch.cuda.get_device_name(0)}, "
             f"{datetime.date.today()}", "",
             f"PyTorch {torch.__version__}; `bench/distributed.py --iters {args.iters}`. "
             "One step: forward, MSE loss, backward, SGD; each rank its own batch (no grad). "
             "Per step: CUDA events around one step after an L2 flush and a barrier, the mean "
             "over the steps. Steady: the same steps back to back between two events (the host "
             "queueing ahead, as a training loop runs), the mean. The slower rank's times.", "",
             "| model | wrapper | fuser ms | eager ms | vs eager | fuser steady ms | "
             "eager steady ms | steady vs eager | max abs diff to eager after 3 steps |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        lines.append(f"| {r['name']} | {r['form']} | {r['fuser_ms']:.3f} | {r['eager_ms']:.3f} | "
                     f"{r['speedup']:.3f}x | {r['fuser_steady_ms']:.3f} | "
                     f"{r['eager_steady_ms']:.3f} | {r['speedup_steady']:.3f}x | "
                     f"{r['max_abs_diff']:.2e} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
        args.out.with_suffix(".json").write_text(json.dumps(records, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
