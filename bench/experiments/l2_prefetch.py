"""The pointwise kernels' L2 prefetch size (config l2_prefetch: 0, 64, 128,
256 bytes) on W1 and the seed chain, interleaved with eager and
torch.compile; each variant checked against eager first. The variants come
from scripts/build-pointwise-sweep.sh (.artifacts/w1sweep/<w1|chain>_l2_<bytes>).

    FUSER_ARTIFACTS=.artifacts python3 bench/experiments/l2_prefetch.py [--rounds R]
"""

import argparse
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, load, time_interleaved  # noqa: E402


def chain_ref(x, b):
    h = x * 0.5 + b
    return torch.tanh(F.leaky_relu(h, 0.01)) + h


def workloads():
    x1 = torch.randn(4096, 393216, device="cuda")
    xc = torch.randn(65536, 1000, device="cuda")
    bc = torch.randn(1000, device="cuda")
    yield "w1", (x1,), lambda x: F.leaky_relu(x, 0.01), 0.0
    del x1
    yield "chain", (xc, bc), chain_ref, 1e-5


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--rounds", type=int, default=4)
    args = p.parse_args()
    for name, inputs, ref_fn, tol in workloads():
        ref = ref_fn(*inputs)
        out = torch.empty_like(ref)
        compiled = torch.compile(ref_fn)
        compiled(*inputs)
        fns = {"eager": lambda: ref_fn(*inputs), "compile": lambda: compiled(*inputs)}
        for ptx in sorted((ARTIFACTS / "w1sweep").glob(f"{name}_l2_*.ptx")):
            mod = load(f"w1sweep/{ptx.stem}")
            out.fill_(float("nan"))
            mod.forward(*inputs, out=out)
            torch.testing.assert_close(out, ref, rtol=tol, atol=tol)
            fns[ptx.stem] = lambda m=mod: m.forward(*inputs, out=out)
        del ref
        res = time_interleaved(fns, args.iters, rounds=args.rounds)
        e = res["eager"]["median_ms"]
        nbytes = sum(t.numel() * 4 for t in inputs) + out.numel() * 4
        for k, v in res.items():
            ms = v["median_ms"]
            print(f"[l2 prefetch] {name:5s} {k:16s} {ms:.4f} ms {nbytes / ms / 1e6:5.0f} GB/s "
                  f"vs eager {e / ms:.4f}x  rounds {[round(t, 4) for t in v['round_medians_ms']]}")
        del fns, out, compiled
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
