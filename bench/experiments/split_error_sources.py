"""Where 3xtf32's error comes from: the split itself, or the tensor cores'
sums. For the bare x * W^T (N = 256, M = 1024, x uniform in [-1, 1),
nn.Linear's weights), per input, the max |result - float64| of:
  - fuser's kernel (split_linear_k<K>, the default promote_every);
  - cuBLAS SGEMM (TF32 off);
  - the split evaluated exactly (float64 products and sums) with the kernel's
    parts: hi = x truncated to tf32 (what wgmma reads), lo = x - hi rounded
    to nearest tf32, three products hi·hi + hi·lo + lo·hi;
  - the same with hi rounded to nearest tf32, and with the fourth product
    lo·lo, to size what each would buy.
If the exact split's error is close to the kernel's, the sums are not the
problem and only a better split helps.
Usage: python3 bench/experiments/split_error_sources.py [--trials N] [--k K ...] [--out FILE]
"""

import argparse
import math
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, load  # noqa: E402

MASK = -8192  # 0xFFFFE000: the 13 mantissa bits tf32 drops


def trunc_tf32(x):
    return (x.view(torch.int32) & MASK).view(torch.float32)


def round_tf32(x):
    # Half a tf32 unit on the magnitude, then truncate: round to nearest.
    return ((x.view(torch.int32) + 0x1000) & MASK).view(torch.float32)


def split(x, round_hi):
    hi = round_tf32(x) if round_hi else trunc_tf32(x)
    lo = round_tf32(x - hi)
    return hi.double(), lo.double()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--k", type=int, nargs="+", default=[200, 1000, 8192])
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = ["| K | per input, over SGEMM's: | kernel | exact split (truncated hi) | "
            "exact split, rounded hi | exact split + lo·lo | exact, rounded hi + lo·lo |",
            "|---|---|---|---|---|---|---|"]
    for k in args.k:
        stem = f"split_linear_k{k}"
        if not (ARTIFACTS / f"{stem}.ptx").exists():
            sys.exit(f"{stem} missing: run scripts/build-gpu-artifacts.sh")
        mod = load(stem)
        ratios = {name: [] for name in ("kernel", "trunc", "round", "trunc4", "round4")}
        for _ in range(args.trials):
            x = torch.rand(1024, k, device="cuda", generator=gen) * 2 - 1
            w = (torch.rand(256, k, device="cuda", generator=gen) * 2 - 1) / math.sqrt(k)
            ref = x.double() @ w.double().T
            sgemm = float(((x @ w.T).double() - ref).abs().max())
            out = torch.full((1024, 256), float("nan"), device="cuda")
            mod.forward(x, w, out=out)
            ratios["kernel"].append(float((out.double() - ref).abs().max()) / sgemm)
            for round_hi, three, four in ((False, "trunc", "trunc4"), (True, "round", "round4")):
                xh, xl = split(x, round_hi)
                wh, wl = split(w, round_hi)
                s3 = xh @ wh.T + xh @ wl.T + xl @ wh.T
                ratios[three].append(float((s3 - ref).abs().max()) / sgemm)
                ratios[four].append(float((s3 + xl @ wl.T - ref).abs().max()) / sgemm)
        cells = " | ".join(f"{statistics.median(r):.2f} (worst {max(r):.2f})" for r in ratios.values())
        rows.append(f"| {k} | median (worst) of {args.trials} | {cells} |")
        print(rows[-1], flush=True)
    text = "\n".join(rows) + "\n"
    if args.out:
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
