"""Codegen variants of 3xtf32 on wgmma_tma side by side: accuracy against
cuBLAS SGEMM and W2/W3 speed, to choose a split and promotion interval.

Each variant is a directory of artifacts (default .artifacts/var/v*), with
split_linear_k<K>_pe<P> (the bare GEMM x * W^T, N = 256, dynamic M) and
w2_pe<P>, w3_pe<P> (the seed examples) for each promotion interval P.
Accuracy: max |GEMM - float64| over --trials fresh inputs (x uniform in
[-1, 1), nn.Linear's weights) at M = 1000 and 1027 (not tile multiples),
beside cuBLAS SGEMM's (TF32 off) on the same inputs. Speed: all variants' W2 and W3 in
interleaved rounds (bench.time_interleaved), L2 flushed before each call.
Usage: python3 bench/experiments/split_variants.py [DIR ...] [--out DIR]
"""

import argparse
import math
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
import bench  # noqa: E402


def load(path):
    import fuser

    return fuser.load(fuser.Artifact.from_files(
        path.with_suffix(".ptx"), path.with_suffix(".manifest.json")))


def intervals(d):
    return sorted({int(p.stem.rsplit("_pe", 1)[1]) for p in d.glob("w2_pe*.ptx")})


def accuracy_rows(dirs, gen, trials):
    rows = ["| K | variant | promote every | fuser max err | SGEMM max err | fuser / SGEMM |",
            "|---|---|---|---|---|---|"]
    for k in (200, 1000, 8192):
        inputs = []
        for t in range(trials):
            m = 1000 + 27 * (t % 2)
            x = torch.rand(m, k, device="cuda", generator=gen) * 2 - 1
            bound = 1 / math.sqrt(k)
            w = (torch.rand(256, k, device="cuda", generator=gen) * 2 - 1) * bound
            inputs.append((x, w, x.double() @ w.double().T))
        sgemm = max(float(((x @ w.T).double() - ref).abs().max()) for x, w, ref in inputs)
        for d in dirs:
            for pe in intervals(d):
                mod = load(d / f"split_linear_k{k}_pe{pe}")
                err = 0.0
                for x, w, ref in inputs:
                    out = torch.full((x.shape[0], 256), float("nan"), device="cuda")
                    mod.forward(x, w, out=out)
                    err = max(err, float((out.double() - ref).abs().max()))
                rows.append(f"| {k} | {d.name} | {pe} | {err:.2e} | {sgemm:.2e} | "
                            f"{err / sgemm:.2f} |")
                print(rows[-1], flush=True)
    return rows


def speed_rows(dirs, iters, rounds):
    rows = ["| workload | variant | promote every | ms (median of rounds) | max err vs eager |",
            "|---|---|---|---|---|"]
    x, (w, b, gamma, beta), ref3, out = bench.w3_problem()
    lin = lambda t: F.linear(t, w, b)
    ref2 = lambda t: F.leaky_relu(lin(t) * 2.0, 0.1)
    with torch.no_grad():
        for name, args, ref in (("w2", (x, w, b), ref2),
                                ("w3", (x, w, b, gamma, beta), ref3)):
            expected = ref(x)
            fns, errs = {"eager": lambda: ref(x)}, {}
            for d in dirs:
                for pe in intervals(d):
                    mod = load(d / f"{name}_pe{pe}")
                    out.fill_(float("nan"))
                    mod.forward(*args, out=out)
                    key = (d.name, pe)
                    errs[key] = float((out - expected).abs().max())
                    fns[key] = (lambda m: lambda: m.forward(*args, out=out))(mod)
            times = bench.time_interleaved(fns, iters, rounds)
            rows.append(f"| {name} | eager | | {times['eager']['median_ms']:.4f} | |")
            for key, err in errs.items():
                rows.append(f"| {name} | {key[0]} | {key[1]} | "
                            f"{times[key]['median_ms']:.4f} | {err:.1e} |")
                print(rows[-1], flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--trials", type=int, default=5)
    args = ap.parse_args()
    dirs = args.dirs or sorted((bench.ARTIFACTS / "var").glob("v*"))
    if not dirs:
        sys.exit("no variant directories: build them first")
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(0)
    text = "\n".join(accuracy_rows(dirs, gen, args.trials) + [""] +
                     speed_rows(dirs, args.iters, args.rounds)) + "\n"
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "split_variants.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
