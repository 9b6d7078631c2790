"""The promotion interval of 3xtf32 on wgmma_tma: accuracy against cuBLAS
SGEMM and speed, to choose the default promote_every.

For each interval compiled by scripts/build-mma-artifacts.sh
(split_linear_k<K>_pe<P>: the bare GEMM x * W^T, N = 256, dynamic M), the
max |GEMM - float64| over 5 fresh inputs (x uniform in [-1, 1), nn.Linear's
weights) at M = 1024, beside cuBLAS SGEMM's (TF32 off) on the same inputs.
W2/W3 timings of the same intervals: bench.py --only mmav,w3v.
Usage: python3 bench/split_promotion.py [--out DIR]
"""

import argparse
import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import ARTIFACTS, load  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = ["| K | promote every | fuser max err | cuBLAS SGEMM max err | fuser / SGEMM |",
            "|---|---|---|---|---|"]
    for k in (200, 1000, 8192):
        inputs = []
        for _ in range(5):
            x = torch.rand(1024, k, device="cuda", generator=gen) * 2 - 1
            bound = 1 / math.sqrt(k)
            w = (torch.rand(256, k, device="cuda", generator=gen) * 2 - 1) * bound
            inputs.append((x, w, x.double() @ w.double().T))
        sgemm = max(float(((x @ w.T).double() - ref).abs().max()) for x, w, ref in inputs)
        for pe in (32, 64, 128, 256):
            stem = f"split_linear_k{k}_pe{pe}"
            if not (ARTIFACTS / f"{stem}.ptx").exists():
                sys.exit(f"{stem} missing: run scripts/build-gpu-artifacts.sh")
            mod = load(stem)
            err = 0.0
            for x, w, ref in inputs:
                out = torch.full((1024, 256), float("nan"), device="cuda")
                mod.forward(x, w, out=out)
                err = max(err, float((out.double() - ref).abs().max()))
            rows.append(f"| {k} | {pe} | {err:.2e} | {sgemm:.2e} | {err / sgemm:.2f} |")
            print(rows[-1], flush=True)
    text = "\n".join(rows) + "\n"
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "split_promotion.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
