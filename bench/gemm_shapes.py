"""fp32 GEMM shape classes: fuser's default fp32 kernel against cuBLAS SGEMM.

Each class is the bare x * W^T (nn.Linear's layout) with static sizes,
compiled with the default options by scripts/build-mma-artifacts.sh as
.artifacts/gemm_<class> (3xtf32 on wgmma_tma on sm_90a where it applies;
large_k splits K 33 ways, large_k_nosplit is it compiled with split-k=1).
Per class: the max |result - float64| of fuser and of torch.mm (TF32 off)
on the same inputs (x uniform in [-1, 1), nn.Linear's weights), then both
timed as bench.py times (L2 flushed, medians). square_nn is x @ W with W
stored K x N (B copied K-major first at this M), against torch.mm; the batched class is torch.bmm's layout
(B x M x K times B x K x N) against torch.bmm.
--against DIR adds another build's artifacts (a codegen change's A/B):
then all three are timed in interleaved rounds (bench.time_interleaved).
Usage: python3 bench/gemm_shapes.py [--iters N] [--against DIR] [--out DIR]
"""

import argparse
import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import ARTIFACTS, load, time_fn, time_interleaved  # noqa: E402

CLASSES = [  # name, M, N, K, what bounds it
    ("square", 4096, 4096, 4096, "compute"),
    ("tall_skinny", 32768, 1024, 1024, "compute"),
    ("small_k", 8192, 8192, 32, "memory (writes C)"),
    ("large_k", 256, 256, 131072, "compute (few tiles)"),
    ("large_k_nosplit", 256, 256, 131072, "compute (few tiles)"),
    ("matvec", 8192, 1, 8192, "memory (reads x)"),
    ("linear_odd", 1000, 3000, 1000, "compute"),
]
# x @ W with W stored K x N (torch.mm(a, b)): at M >= 1536 fuser copies B
# K-major first (cheaper there than the kernel's transposition; bmm below
# takes the in-kernel path).
NN = [("square_nn", 4096, 4096, 4096, "compute")]
BATCHED = [("bmm", 32, 1024, 1024, 1024, "compute")]  # name, B, M, N, K


def load_from(directory, stem):
    import fuser

    return fuser.load(fuser.Artifact.from_files(
        directory / f"{stem}.ptx", directory / f"{stem}.manifest.json"))


def measure(name, dims, bound, x, w, cublas, iters, against=None):
    """One table row: fuser's gemm_<name> against `cublas(x, w)` (torch.mm
    or torch.bmm), both checked against the same product in float64; with
    `against`, that build's gemm_<name> too."""
    stem = f"gemm_{name}"
    if not (ARTIFACTS / f"{stem}.ptx").exists():
        sys.exit(f"{stem} missing: run scripts/build-gpu-artifacts.sh")
    mod = load(stem)
    ref = cublas(x.double(), w.double())
    out = torch.full(ref.shape, float("nan"), device="cuda")
    mod.forward(x, w, out=out)
    ours_err = float((out.double() - ref).abs().max())
    cublas_err = float((cublas(x, w).double() - ref).abs().max())
    flops = 2 * ref.numel() * x.shape[-1]
    del ref
    if against is None:
        t_ours = time_fn(lambda: mod.forward(x, w, out=out), iters)["median_ms"]
        t_cublas = time_fn(lambda: cublas(x, w), iters)["median_ms"]
        other = ""
    else:
        before = load_from(against, stem)
        t = time_interleaved({"fuser": lambda: mod.forward(x, w, out=out),
                              "cublas": lambda: cublas(x, w),
                              "before": lambda: before.forward(x, w, out=out)}, iters)
        t_ours, t_cublas = t["fuser"]["median_ms"], t["cublas"]["median_ms"]
        t_before = t["before"]["median_ms"]
        other = f" {t_before:.3f} | {t_before / t_ours:.3f}x |"
    tflops = flops / (t_ours * 1e-3) / 1e12
    return (f"| {name} | {dims} | {bound} | {t_ours:.3f} | {t_cublas:.3f} | "
            f"{t_cublas / t_ours:.2f}x | {tflops:.1f} | {ours_err:.2e} | {cublas_err:.2e} |"
            + other)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--against", type=Path, default=None,
                    help="another build's artifact directory, timed interleaved")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = ["| class | M x N x K | bound | fuser ms | cuBLAS SGEMM ms | vs cuBLAS | fuser TFLOP/s "
            "| fuser max err | SGEMM max err |", "|---|---|---|---|---|---|---|---|---|"]
    if args.against:
        rows[0] += f" {args.against} ms | speedup over it |"
        rows[1] += "---|---|"

    def uniform(*shape, scale=1.0):
        return (torch.rand(*shape, device="cuda", generator=gen) * 2 - 1) * scale

    for name, m, n, k, bound in CLASSES:
        x, w = uniform(m, k), uniform(n, k, scale=1 / math.sqrt(k))
        rows.append(measure(name, f"{m} x {n} x {k}", bound, x, w,
                            lambda a, b: a @ b.T, args.iters, args.against))
        print(rows[-1], flush=True)
    for name, m, n, k, bound in NN:
        x, w = uniform(m, k), uniform(k, n, scale=1 / math.sqrt(k))
        rows.append(measure(name, f"{m} x {n} x {k}", bound, x, w,
                            torch.mm, args.iters, args.against))
        print(rows[-1], flush=True)
    for name, bsz, m, n, k, bound in BATCHED:
        x, w = uniform(bsz, m, k), uniform(bsz, k, n, scale=1 / math.sqrt(k))
        rows.append(measure(name, f"{bsz} x {m} x {n} x {k}", bound, x, w,
                            torch.bmm, args.iters, args.against))
        print(rows[-1], flush=True)
        del x, w
        torch.cuda.empty_cache()
    text = "\n".join(rows) + "\n"
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "gemm_shapes.md").write_text(text)
    print(text)

if __name__ == "__main__":
    main()
