"""W1 (LeakyReLU on 4096 x 393216) through pointwise-kernel variants, timed
interleaved with PyTorch eager and a device copy of the same size: block
size, vectors per thread, grid cap and cache hints. The variants are built
where MLIR is into .artifacts/w1sweep/ by scripts/build-pointwise-sweep.sh
(w1_bs<B>_v<V>: fuser-configure-kernels{block-size=B vectors-per-thread=V};
earlier runs also had w1_bs<B>_g<G> for max-grid=G and w1_<ld>_<st>, the
default kernel's PTX with cache operators on its vector load and store).
Each result is checked against eager first.

    FUSER_ARTIFACTS=.artifacts python3 bench/experiments/pointwise_sweep.py [--iters N] [--rounds R]
"""

import argparse
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, load, time_interleaved  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    x = torch.randn(4096, 393216, device="cuda")
    ref = F.leaky_relu(x, 0.01)
    out = torch.empty_like(x)
    fns = {"eager": lambda: F.leaky_relu(x, 0.01), "copy": lambda: out.copy_(x)}
    # The directory holds the seed chain's l2-prefetch variants too (2 inputs).
    for ptx in sorted((ARTIFACTS / "w1sweep").glob("w1_*.ptx")):
        mod = load(f"w1sweep/{ptx.stem}")
        mod.forward(x, out=out)
        if not torch.equal(out, ref):
            print(f"[sweep] {ptx.stem}: differs from eager, skipped")
            continue
        fns[ptx.stem] = lambda m=mod: m.forward(x, out=out)
    del ref
    res = time_interleaved(fns, args.iters, args.rounds)
    e = res["eager"]["median_ms"]
    for k, v in sorted(res.items(), key=lambda kv: kv[1]["median_ms"]):
        print(f"[sweep] {k:24s} {v['median_ms']:.4f} ms  {2 * x.numel() * 4 / v['median_ms'] / 1e6:.0f} GB/s"
              f"  vs eager {e / v['median_ms']:.4f}x  rounds {[round(t, 4) for t in v['round_medians_ms']]}")
    if args.out:
        args.out.write_text(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
