"""The promotion interval of 3xtf32 on wgmma_tma: accuracy against cuBLAS
SGEMM and speed, to choose the default promote_every.

For each interval compiled by scripts/build-mma-artifacts.sh
(split_linear_k<K>_pe<P>: the bare GEMM x * W^T, N = 256, dynamic M), the
max |GEMM - float64| over --trials fresh inputs (x uniform in [-1, 1),
nn.Linear's weights; M alternating 1024 and 1027) beside cuBLAS SGEMM's
(TF32 off) on the same inputs: the worst of each over all inputs, and the
per-input ratio (median and worst), since issue 17 asks for at most SGEMM's
error on every input.
--against DIR... adds other builds' artifacts (a codegen change's A/B): their
rows, on the same inputs, and with --speed, W2 and W3 at every interval
(mma_w2v_3xtf32_pe<P>, w3v_3xtf32_pe<P>) of every build timed in
interleaved rounds beside eager (bench.time_interleaved).
Usage: python3 bench/experiments/split_promotion.py [--trials N] [--k K ...] [--pe P ...]
                                        [--against DIR ...] [--speed] [--out DIR]
"""

import argparse
import math
import statistics
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, time_interleaved, w3_problem  # noqa: E402


def load_from(directory, stem):
    import fuser

    ptx = directory / f"{stem}.ptx"
    if not ptx.exists():
        sys.exit(f"{ptx} missing: run scripts/build-gpu-artifacts.sh")
    return fuser.load(fuser.Artifact.from_files(ptx, directory / f"{stem}.manifest.json"))


def builds(args):
    out = {"this build": ARTIFACTS}
    for directory in args.against:
        out[str(directory)] = directory
    return out


def accuracy(args, gen):
    rows = ["| K | promote every | build | fuser max err | cuBLAS SGEMM max err | fuser / SGEMM "
            "| per input: median | per input: worst |", "|---|---|---|---|---|---|---|---|"]
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
        for pe in args.pe:
            for name, directory in builds(args).items():
                mod = load_from(directory, f"split_linear_k{k}_pe{pe}")
                errs = []
                for x, w, ref, _ in inputs:
                    out = torch.full((x.shape[0], 256), float("nan"), device="cuda")
                    mod.forward(x, w, out=out)
                    errs.append(float((out.double() - ref).abs().max()))
                ratios = sorted(e / i[3] for e, i in zip(errs, inputs))
                rows.append(f"| {k} | {pe} | {name} | {max(errs):.2e} | {sgemm:.2e} "
                            f"| {max(errs) / sgemm:.2f} | {statistics.median(ratios):.2f} "
                            f"| {ratios[-1]:.2f} |")
                print(rows[-1], flush=True)
    return rows


def speed(args):
    """W2 and W3 at every interval of every build, interleaved with eager."""
    rows = ["| workload | promote every | build | ms | vs eager |", "|---|---|---|---|---|"]
    x, (w, b, gamma, beta), w3_ref, out = w3_problem()
    lin = torch.nn.Linear(8192, 8192, device="cuda")
    w2w, w2b = lin.weight.detach(), lin.bias.detach()
    problems = {
        "W2": ("mma_w2v_3xtf32_pe{}", (x, w2w, w2b),
               lambda: F.leaky_relu(lin(x) * 2.0, 0.1)),
        "W3": ("w3v_3xtf32_pe{}", (x, w, b, gamma, beta), lambda: w3_ref(x)),
    }
    with torch.no_grad():
        for work, (pattern, operands, eager) in problems.items():
            expected = eager()
            fns = {"eager": eager}
            for pe in args.pe:
                for name, directory in builds(args).items():
                    mod = load_from(directory, pattern.format(pe))
                    out.fill_(float("nan"))
                    mod.forward(*operands, out=out)
                    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-4)
                    fns[(pe, name)] = (lambda m: lambda: m.forward(*operands, out=out))(mod)
            t = time_interleaved(fns, args.iters, args.rounds)
            eager_ms = t.pop("eager")["median_ms"]
            for (pe, name), r in t.items():
                rows.append(f"| {work} | {pe} | {name} | {r['median_ms']:.4f} "
                            f"| {eager_ms / r['median_ms']:.3f}x |")
                print(rows[-1], flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--k", type=int, nargs="+", default=[200, 1000, 8192])
    ap.add_argument("--pe", type=int, nargs="+", default=[32, 64, 128, 256])
    ap.add_argument("--against", type=Path, nargs="+", default=[],
                    help="other builds' artifact directories (same inputs, interleaved timing)")
    ap.add_argument("--speed", action="store_true", help="also time W2 and W3 at every interval")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = accuracy(args, gen)
    if args.speed:
        rows += [""] + speed(args)
    text = "\n".join(rows) + "\n"
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "split_promotion.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
