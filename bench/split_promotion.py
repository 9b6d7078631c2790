"""The promotion interval of 3xtf32 on wgmma_tma: accuracy against cuBLAS
SGEMM and speed, to choose the default promote_every.

For each interval compiled by scripts/build-mma-artifacts.sh
(split_linear_k<K>_pe<P>: the bare GEMM x * W^T, N = 256, dynamic M), the
max |GEMM - float64| over --trials fresh inputs (x uniform in [-1, 1),
nn.Linear's weights; M alternating 1024 and 1027) beside cuBLAS SGEMM's
(TF32 off) on the same inputs: the worst of each over all inputs, and the
per-input ratio (median and worst), since issue 17 asks for at most SGEMM's
error on every input.
W2/W3 timings of the same intervals: bench.py --only mmav,w3v.
Usage: python3 bench/split_promotion.py [--trials N] [--k K ...] [--out DIR]
"""

import argparse
import math
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import ARTIFACTS, load  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--k", type=int, nargs="+", default=[200, 1000, 8192])
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = ["| K | promote every | fuser max err | cuBLAS SGEMM max err | fuser / SGEMM "
            "| per input: median | per input: worst |", "|---|---|---|---|---|---|---|"]
    for k in args.k:
        inputs = []
        for t in range(args.trials):
            m = 1024 + 3 * (t % 2)
            x = torch.rand(m, k, device="cuda", generator=gen) * 2 - 1
            bound = 1 / math.sqrt(k)
            w = (torch.rand(256, k, device="cuda", generator=gen) * 2 - 1) * bound
            ref = x.double() @ w.double().T
            inputs.append((x, w, ref, float(((x @ w.T).double() - ref).abs().max())))
        sgemm = max(i[3] for i in inputs)
        for pe in (32, 64, 128, 256):
            stem = f"split_linear_k{k}_pe{pe}"
            if not (ARTIFACTS / f"{stem}.ptx").exists():
                sys.exit(f"{stem} missing: run scripts/build-gpu-artifacts.sh")
            mod = load(stem)
            errs = []
            for x, w, ref, _ in inputs:
                out = torch.full((x.shape[0], 256), float("nan"), device="cuda")
                mod.forward(x, w, out=out)
                errs.append(float((out.double() - ref).abs().max()))
            ratios = sorted(e / i[3] for e, i in zip(errs, inputs))
            rows.append(f"| {k} | {pe} | {max(errs):.2e} | {sgemm:.2e} | {max(errs) / sgemm:.2f} "
                        f"| {statistics.median(ratios):.2f} | {ratios[-1]:.2f} |")
            print(rows[-1], flush=True)
    text = "\n".join(rows) + "\n"
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "split_promotion.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
