"""A CPU model of 3xtf32's sums on wgmma_tma, to try a promotion scheme
before building it (needs only numpy; no GPU).

The model: x and W split as the kernel does (hi = x truncated to tf32, lo =
x - hi rounded to nearest tf32); each wgmma k8 step adds 8 exact products
to its accumulator and rounds the sum toward zero to fp32 (Hopper's
tensor cores truncate); the small terms (hi·lo, lo·hi) and the large one
(hi·hi) go into two accumulators of 32-K tiles; every promote_every K both
are added into fp32 sums (round to nearest), plainly or compensated (what
the add rounds away starts the next chunk's small sums, as WgmmaTmaLoop.cpp
does). Against float64, beside a sequential fp32 dot product (one FMA per
K, as a naive SGEMM) and the split summed exactly.

It reproduced the H100's pattern (bench/results/H100-2026-11-24-split-tf32-promotion.md):
promoting every 32 K worse than every 64 at K = 8192 without compensation,
and compensation cutting the error to 0.6-0.85x. cuBLAS SGEMM itself errs
about 4x less than the sequential product here (it sums in slices), so
compare ratios between schemes, not against this SGEMM.

Usage: python3 bench/experiments/split_sums_model.py [--k K] [--rows R] [--cols C] [--seeds S]
"""

import argparse
import math

import numpy as np

TF32_MASK = np.int32(-8192)  # 0xFFFFE000: the 13 mantissa bits tf32 drops


def trunc_tf32(x):
    return (x.view(np.int32) & TF32_MASK).view(np.float32)


def round_tf32(x):
    return ((x.view(np.int32) + np.int32(0x1000)) & TF32_MASK).view(np.float32)


def to_f32(s):
    """Round to nearest fp32, kept as float64."""
    return s.astype(np.float32).astype(np.float64)


def toward_zero_f32(s):
    """Round toward zero to fp32 (24 significant bits), kept as float64."""
    _, e = np.frexp(s)
    unit = np.ldexp(1.0, e - 24)
    return np.trunc(s / unit) * unit


def wgmma_step(acc, products):
    """One k8 step: the accumulator plus 8 exact products, truncated."""
    return toward_zero_f32(acc + products.sum(axis=1))


def split_gemm(x, w, promote_every, compensated, tile=32):
    """The kernel's result per (row of x, row of w) pair, flattened."""
    xh, wh = trunc_tf32(x), trunc_tf32(w)
    xl, wl = round_tf32(x - xh), round_tf32(w - wh)
    k = x.shape[1]
    padded = -(-k // tile) * tile
    parts = [np.pad(v.astype(np.float64), ((0, 0), (0, padded - k)))
             for v in (xh, xl, wh, wl)]
    xh, xl, wh, wl = parts
    n = x.shape[0]
    sums, error = np.zeros(n), np.zeros(n)
    chunk = promote_every or padded
    for c0 in range(0, padded, chunk):
        small = error if compensated else np.zeros(n)
        large = np.zeros(n)
        for k0 in range(c0, min(c0 + chunk, padded), 8):
            s = slice(k0, k0 + 8)
            small = wgmma_step(small, xh[:, s] * wl[:, s])
            small = wgmma_step(small, xl[:, s] * wh[:, s])
            large = wgmma_step(large, xh[:, s] * wh[:, s])
        part = to_f32(large + small)
        new = to_f32(sums + part)
        error = to_f32(part - to_f32(new - sums))
        sums = new
    return sums


def sequential_sgemm(x, w):
    s = np.zeros(x.shape[0])
    for k in range(x.shape[1]):
        s = to_f32(s + x[:, k].astype(np.float64) * w[:, k].astype(np.float64))
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=1000)
    ap.add_argument("--rows", type=int, default=32, help="rows of x")
    ap.add_argument("--cols", type=int, default=256, help="rows of W (outputs per row)")
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    schemes = [(pe, comp) for pe in (32, 64, 128) for comp in (False, True)]
    print(f"K = {args.k}, {args.rows} x {args.cols} outputs; max |result - float64|")
    print("seed | sequential fp32 | exact split | "
          + " | ".join(f"every {pe}{' comp.' if c else ''}" for pe, c in schemes))
    for seed in range(args.seeds):
        rng = np.random.default_rng(seed)
        x = (rng.random((args.rows, args.k), dtype=np.float32) * 2 - 1).astype(np.float32)
        w = ((rng.random((args.cols, args.k), dtype=np.float32) * 2 - 1)
             / np.float32(math.sqrt(args.k))).astype(np.float32)
        xa, wa = np.repeat(x, args.cols, axis=0), np.tile(w, (args.rows, 1))
        ref = (xa.astype(np.float64) * wa.astype(np.float64)).sum(axis=1)
        xh, wh = trunc_tf32(xa), trunc_tf32(wa)
        xl, wl = round_tf32(xa - xh), round_tf32(wa - wh)
        exact = sum((a.astype(np.float64) * b.astype(np.float64)).sum(axis=1)
                    for a, b in ((xh, wh), (xh, wl), (xl, wh)))
        cells = [np.abs(sequential_sgemm(xa, wa) - ref).max(), np.abs(exact - ref).max()]
        cells += [np.abs(split_gemm(xa, wa, pe, c) - ref).max() for pe, c in schemes]
        print(f"{seed} | " + " | ".join(f"{v:.2e}" for v in cells), flush=True)


if __name__ == "__main__":
    main()
