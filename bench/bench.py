#!/usr/bin/env python3
"""The benchmark harness: how fuser's kernels are timed, and the seed table.

The method follows the users' KernelBench-style benchmark: CUDA events on
the current stream around one forward call, a 256 MB write that flushes the
L2 cache before each call, warm-up calls first, then many timed calls; the
mean and the median are reported, and the ratios (reference time / fuser
time) are the figures that matter. time_fn, time_interleaved (several
implementations in alternating rounds, against clock drift), kernel_times
(device times from torch.profiler) and load are what bench/suite.py and
bench/experiments/ build on.

Run as a script, it times the workloads of WORKLOADS (the seed examples:
W1, W2, W3, the seed chain, GroupNorm; their tensor-core and tile variants)
against PyTorch eager and torch.compile and writes <out>/results.md (also
as <out>/<device>-<date>.md), <out>/results.json and <out>/bandwidth.png.
bench/gpu-check.sh runs it.

    python3 bench/bench.py [--only w1,chain,w2,w3] [--iters N] [--out DIR]
"""

import argparse
import datetime
import json
import os
import statistics
import sys
from pathlib import Path

import torch
import torch.nn.functional as F


ARTIFACTS = Path(os.environ.get("FUSER_ARTIFACTS", ".artifacts"))
FLUSH = None


def flush_l2():
    global FLUSH
    if FLUSH is None:
        FLUSH = torch.empty(256 * 1024 * 1024 // 4, device="cuda")
    FLUSH.fill_(1.0)


def time_fn(fn, iters, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        flush_l2()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return {"mean_ms": statistics.fmean(times), "median_ms": statistics.median(times),
            "min_ms": min(times), "iters": iters}


def kernel_times(step, steps):
    """{kernel name: (launches per step, us per step)} over `steps` calls:
    device times alone (CUPTI through torch.profiler), no host overhead."""
    from collections import defaultdict

    from torch.profiler import ProfilerActivity, profile

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    totals = defaultdict(lambda: [0, 0.0])
    for ev in prof.events():
        if ev.device_type != torch.autograd.DeviceType.CUDA:
            continue
        t = totals[ev.name]
        t[0] += 1
        t[1] += ev.device_time_total if hasattr(ev, "device_time_total") \
            else ev.cuda_time_total
    return {k: (n / steps, us / steps) for k, (n, us) in totals.items()}


def time_interleaved(fns, iters, rounds=5):
    """Times several callables in alternating rounds (each round runs them
    all, in an order rotated by one per round), so that clock and thermal
    drift over the run does not favour the one timed first. Returns, per
    name, time_fn's figures with median_ms the median of the rounds'
    medians, and the rounds' medians themselves."""
    names = list(fns)
    per_round = {n: [] for n in names}
    for r in range(rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            per_round[n].append(time_fn(fns[n], iters))
    out = {}
    for n in names:
        medians = [t["median_ms"] for t in per_round[n]]
        out[n] = {"median_ms": statistics.median(medians),
                  "mean_ms": statistics.fmean(t["mean_ms"] for t in per_round[n]),
                  "min_ms": min(t["min_ms"] for t in per_round[n]),
                  "round_medians_ms": medians, "iters": iters * rounds}
    return out


def load(stem, directory=None):
    """The compiled artifact <directory or ARTIFACTS>/<stem>.ptx with its
    manifest, loaded by fuser's runtime."""
    import fuser  # here, so the timing helpers need only torch

    directory = ARTIFACTS if directory is None else Path(directory)
    ptx = directory / f"{stem}.ptx"
    if not ptx.exists():
        raise FileNotFoundError(f"{ptx} missing: run scripts/build-gpu-artifacts.sh")
    return fuser.load(fuser.Artifact.from_files(ptx, directory / f"{stem}.manifest.json"))


def model_new(name):
    """The ModelNew file scripts/build-torch-artifacts.py writes for a seed
    model (.artifacts/torch/<name>_new.py), imported as a module."""
    import importlib.util

    path = ARTIFACTS / "torch" / f"{name}_new.py"
    if not path.exists():
        raise FileNotFoundError(f"{path} missing: run scripts/build-torch-artifacts.py")
    spec = importlib.util.spec_from_file_location(f"{name}_new", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def copy_ceiling(nbytes):
    """Device-to-device copy of the same size: the bandwidth ceiling."""
    src = torch.empty(nbytes // 4, device="cuda")
    dst = torch.empty_like(src)
    t = time_fn(lambda: dst.copy_(src), iters=10)
    del src, dst
    return 2 * nbytes / (t["median_ms"] * 1e-3) / 1e9  # GB/s, read + write


def bench_w1(iters):
    mod = load("w1_leaky_relu_static")
    x = torch.randn(4096, 393216, device="cuda")
    out = torch.empty_like(x)
    eager = lambda: F.leaky_relu(x, 0.01)
    compiled_fn = torch.compile(lambda t: F.leaky_relu(t, 0.01))
    compiled = lambda: compiled_fn(x)
    ours = lambda: mod.forward(x, out=out)
    ours_alloc = lambda: mod.forward(x)
    ours()
    torch.testing.assert_close(out, eager(), rtol=0, atol=0)
    # Interleaved: W1 is within a few percent of eager, below the drift
    # between back-to-back timings of a 6.4 GB stream.
    res = time_interleaved({"eager": eager, "compile": compiled, "fuser": ours,
                            "fuser (alloc)": ours_alloc},
                           max(1, iters // 3), rounds=3)
    nbytes = 2 * x.numel() * 4
    del x, out
    torch.cuda.empty_cache()
    return res, nbytes


def bench_chain(iters, rows=65536):
    mod = load("pointwise_chain")
    x = torch.randn(rows, 1000, device="cuda")
    b = torch.randn(1000, device="cuda")

    def ref(x, b):
        h = x * 0.5 + b
        return torch.tanh(F.leaky_relu(h, 0.01)) + h

    out = torch.empty_like(x)
    compiled_fn = torch.compile(ref)
    ours = lambda: mod.forward(x, b, out=out)
    ours()
    torch.testing.assert_close(out, ref(x, b), rtol=1e-5, atol=1e-5)
    res = {"eager": time_fn(lambda: ref(x, b), iters),
           "compile": time_fn(lambda: compiled_fn(x, b), iters),
           "fuser": time_fn(ours, iters)}
    return res, 2 * x.numel() * 4


def with_gemm_rates(res):
    """Adds TFLOP/s to W2/W3-shaped timings; returns them with the bytes a
    call must move (x and y once, W once)."""
    flops = 2 * 1024 * 8192 * 8192
    for r in res.values():
        r["TFLOP/s"] = flops / (r["median_ms"] * 1e-3) / 1e12
    return res, (1024 * 8192 * 2 + 8192 * 8192) * 4


def bench_w2(iters):
    """W2: leaky_relu((x W^T + b) * 2, 0.1); fp32 (no TF32), as users check."""
    torch.backends.cuda.matmul.allow_tf32 = False
    mod = load("w2_linear_scale_leaky")  # the example, compiled from linalg
    lin = torch.nn.Linear(8192, 8192, device="cuda")
    x = torch.rand(1024, 8192, device="cuda")
    w, b = lin.weight.detach(), lin.bias.detach()

    def ref(x):
        return F.leaky_relu(lin(x) * 2.0, 0.1)

    out = torch.empty(1024, 8192, device="cuda")
    with torch.no_grad():
        compiled_fn = torch.compile(ref)
        ours = lambda: mod.forward(x, w, b, out=out)
        ours()
        torch.testing.assert_close(out, ref(x), rtol=1e-4, atol=1e-4)
        res = {"eager": time_fn(lambda: ref(x), iters),
               "compile": time_fn(lambda: compiled_fn(x), iters),
               "cuBLAS GEMM alone": time_fn(lambda: torch.mm(x, w.T), iters),
               "fuser": time_fn(ours, iters)}
        if (ARTIFACTS / "w2_linear_scale_leaky_ffma.ptx").exists():
            ffma = load("w2_linear_scale_leaky_ffma")
            res["fuser FFMA (fp32-kernel=ffma)"] = time_fn(
                lambda: ffma.forward(x, w, b, out=out), iters)
        if (ARTIFACTS / "mma_w2_tf32_2xbf16.ptx").exists():
            split = load("mma_w2_tf32_2xbf16")
            split.forward(x, w, b, out=out)
            torch.testing.assert_close(out, ref(x), rtol=1e-4, atol=1e-4)
            res["fuser tf32_2xbf16"] = time_fn(
                lambda: split.forward(x, w, b, out=out), iters)
        # The fp64 tensor-core rate the default kernel draws on.
        x64, w64 = x.double(), w.double()
        res["cuBLAS DGEMM alone (f64 tensors)"] = time_fn(lambda: torch.mm(x64, w64.T), iters)
        del x64, w64
        torch.backends.cuda.matmul.allow_tf32 = True
        res["eager TF32"] = time_fn(lambda: ref(x), iters)
        torch.backends.cuda.matmul.allow_tf32 = False
    return with_gemm_rates(res)


def bench_w2_variants(iters):
    """Every tile configuration compiled as .artifacts/matmul_w2_<tag>."""
    torch.backends.cuda.matmul.allow_tf32 = False
    x = torch.rand(1024, 8192, device="cuda")
    lin = torch.nn.Linear(8192, 8192, device="cuda")
    w, b = lin.weight.detach(), lin.bias.detach()
    out = torch.empty(1024, 8192, device="cuda")
    with torch.no_grad():
        ref = F.leaky_relu(lin(x) * 2.0, 0.1)
        res = {"eager": time_fn(lambda: F.leaky_relu(lin(x) * 2.0, 0.1), iters)}
        res["compile"] = res["eager"]
        for ptx in sorted(ARTIFACTS.glob("matmul_w2_*.ptx")):
            mod = load(ptx.stem)
            mod.forward(x, w, b, out=out)
            err = float((out - ref).abs().max())
            res[f"{ptx.stem} (err {err:.1e})"] = time_fn(lambda: mod.forward(x, w, b, out=out), iters)
    return with_gemm_rates(res)


def w3_problem():
    """W3's PyTorch module pieces, input, fuser arguments and reference (fp32,
    no TF32): (x, (w, b, gamma, beta), ref, out)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    lin = torch.nn.Linear(8192, 8192, device="cuda")
    gn = torch.nn.GroupNorm(512, 8192, eps=1e-5, device="cuda")
    x = torch.rand(1024, 8192, device="cuda")
    params = (lin.weight.detach(), lin.bias.detach(), gn.weight.detach(), gn.bias.detach())

    def ref(x):
        y = F.leaky_relu(gn(lin(x)), 0.01)
        return y + y

    return x, params, ref, torch.empty(1024, 8192, device="cuda")


def bench_w3(iters):
    """W3: GroupNorm(512) after the linear layer, LeakyReLU, x + x (fp32)."""
    mod = load("w3_linear_groupnorm")
    x, (w, b, gamma, beta), ref, out = w3_problem()
    with torch.no_grad():
        compiled_fn = torch.compile(ref)
        ours = lambda: mod.forward(x, w, b, gamma, beta, out=out)
        ours()
        torch.testing.assert_close(out, ref(x), rtol=1e-4, atol=1e-4)
        res = {"eager": time_fn(lambda: ref(x), iters),
               "compile": time_fn(lambda: compiled_fn(x), iters),
               "fuser": time_fn(ours, iters)}
        if (ARTIFACTS / "w3_linear_groupnorm_ffma.ptx").exists():
            ffma = load("w3_linear_groupnorm_ffma")
            res["fuser FFMA (fp32-kernel=ffma)"] = time_fn(
                lambda: ffma.forward(x, w, b, gamma, beta, out=out), iters)
        if (ARTIFACTS / "w3_tf32_2xbf16.ptx").exists():
            split = load("w3_tf32_2xbf16")
            split.forward(x, w, b, gamma, beta, out=out)
            torch.testing.assert_close(out, ref(x), rtol=1e-4, atol=1e-4)
            res["fuser tf32_2xbf16"] = time_fn(
                lambda: split.forward(x, w, b, gamma, beta, out=out), iters)
        # Issue #5's yardstick: W3 should cost what fuser's own W2 costs.
        w2 = load("w2_linear_scale_leaky")
        res["fuser W2, same run"] = time_fn(lambda: w2.forward(x, w, b, out=out), iters)
        print(f"[bench] fuser W3 / fuser W2 time: "
              f"{res['fuser']['median_ms'] / res['fuser W2, same run']['median_ms']:.3f}")
    return with_gemm_rates(res)


def bench_w3_variants(iters):
    """Every W3 configuration compiled as .artifacts/w3v_<tag>, with W3's
    eager and torch.compile times (fp32) in the same run."""
    x, (w, b, gamma, beta), ref, out = w3_problem()
    with torch.no_grad():
        expected = ref(x)
        compiled_fn = torch.compile(ref)
        res = {"eager": time_fn(lambda: ref(x), iters),
               "compile": time_fn(lambda: compiled_fn(x), iters)}
        for ptx in sorted(ARTIFACTS.glob("w3v_*.ptx")):
            mod = load(ptx.stem)
            out.fill_(float("nan"))
            mod.forward(x, w, b, gamma, beta, out=out)
            err = float((out - expected).abs().max())
            res[f"{ptx.stem} (err {err:.1e})"] = time_fn(
                lambda: mod.forward(x, w, b, gamma, beta, out=out), iters)
    return with_gemm_rates(res)


def with_cublas_fraction(res, nbytes):
    """TFLOP/s for W2-shaped timings, and each fuser row's fraction of the
    cuBLAS GEMM's throughput (the row named "cuBLAS ...") in its name."""
    flops = 2 * 1024 * 8192 * 8192
    cublas = next(r for name, r in res.items() if name.startswith("cuBLAS"))
    out = {}
    for name, r in res.items():
        r["TFLOP/s"] = flops / (r["median_ms"] * 1e-3) / 1e12
        r["of cuBLAS"] = cublas["median_ms"] / r["median_ms"]
        if name.startswith("fuser"):
            name = f"{name} [{r['of cuBLAS']:.2f}x cuBLAS]"
        out[name] = r
    return out, nbytes


def w2_variant_calls(variants, args, out, exact):
    """Each .artifacts/mma_w2_<variant>'s call on `args` into `out`, named
    with its max error against `exact` (checked NaN-poisoned first)."""
    calls = {}
    for v in variants:
        mod = load(f"mma_w2_{v}")
        out.fill_(float("nan"))
        mod.forward(*args, out=out)
        err = float((out.double() - exact).abs().max())
        calls[f"fuser {v} (max err {err:.1e})"] = (
            lambda mod=mod: mod.forward(*args, out=out))
    return calls


def time_against_cublas(calls, iters):
    """Times the tensor-core rows in interleaved rounds: run one after the
    other, the GPU's clocks fall as it heats, and the rows timed last (fuser's)
    would pay for it."""
    rounds = 5
    return time_interleaved(calls, max(1, iters // rounds), rounds)


def bench_w2_tf32(iters):
    """W2 on tensor cores (precision=tf32 and 3xtf32, mma.sync) against
    PyTorch with TF32 allowed: eager, torch.compile, the cuBLAS TF32 GEMM."""
    lin = torch.nn.Linear(8192, 8192, device="cuda")
    x = torch.rand(1024, 8192, device="cuda")
    w, b = lin.weight.detach(), lin.bias.detach()
    out = torch.empty(1024, 8192, device="cuda")

    def ref(x):
        return F.leaky_relu(lin(x) * 2.0, 0.1)

    prev = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        with torch.no_grad():
            exact = F.leaky_relu((x.double() @ w.double().T + b.double()) * 2.0, 0.1)
            err = float((ref(x).double() - exact).abs().max())
            compiled_fn = torch.compile(ref)
            compiled_fn(x)
            calls = {"eager": lambda: ref(x), "compile": lambda: compiled_fn(x),
                     f"cuBLAS TF32 GEMM alone (eager err {err:.1e})":
                         lambda: torch.mm(x, w.T)}
            # _cluster: in 2-block clusters sharing B (cluster-m=2).
            calls.update(w2_variant_calls(("tf32", "tf32_tma", "tf32_cluster", "3xtf32",
                                           "3xtf32_cluster"), (x, w, b), out, exact))
            res = time_against_cublas(calls, iters)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev
    return with_cublas_fraction(res, (1024 * 8192 * 2 + 8192 * 8192) * 4)


def bench_w2_bf16(iters):
    """W2 with bf16 tensors (mma.sync m16n8k16, fp32 accumulation) against
    PyTorch bf16: eager, torch.compile, cuBLAS (torch.mm, F.linear)."""
    lin = torch.nn.Linear(8192, 8192, device="cuda", dtype=torch.bfloat16)
    x = torch.rand(1024, 8192, device="cuda").to(torch.bfloat16)
    w, b = lin.weight.detach(), lin.bias.detach()
    out = torch.empty(1024, 8192, device="cuda", dtype=torch.bfloat16)

    def ref(x):
        return F.leaky_relu(lin(x) * 2.0, 0.1)

    with torch.no_grad():
        exact = F.leaky_relu((x.double() @ w.double().T + b.double()) * 2.0, 0.1)
        err = float((ref(x).double() - exact).abs().max())
        compiled_fn = torch.compile(ref)
        compiled_fn(x)
        calls = {"eager": lambda: ref(x), "compile": lambda: compiled_fn(x),
                 f"cuBLAS bf16 torch.mm alone (eager err {err:.1e})": lambda: torch.mm(x, w.T),
                 "F.linear bf16 (cuBLAS + bias)": lambda: F.linear(x, w, b)}
        calls.update(w2_variant_calls(("bf16", "bf16_cluster"), (x, w, b), out, exact))
        res = time_against_cublas(calls, iters)
    return with_cublas_fraction(res, (1024 * 8192 * 2 + 8192 * 8192) * 2)


def bench_bare_gemm(prec, m, n, k):
    """The bare product x @ W^T on tensor cores (.artifacts/cluster_<prec>_
    <M>x<N>x<K>_c1, from scripts/build-mma-artifacts.sh) against cuBLAS
    (eager: torch.mm) and torch.compile, interleaved; W2's data: x in
    [0, 1), W as nn.Linear initializes it."""
    def run(iters):
        dtype = torch.bfloat16 if prec == "bf16" else torch.float32
        x = torch.rand(m, k, device="cuda").to(dtype)
        w = ((torch.rand(n, k, device="cuda") * 2 - 1) / k ** 0.5).to(dtype)
        out = torch.empty(m, n, device="cuda", dtype=dtype)
        mod = load(f"cluster_{prec}_{m}x{n}x{k}_c1")
        prev = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            with torch.no_grad():
                out.fill_(float("nan"))
                mod.forward(x, w, out=out)
                exact = x.double() @ w.double().T
                err = float((out.double() - exact).abs().max())
                compiled_fn = torch.compile(lambda a, b: a @ b.T)
                compiled_fn(x, w)
                res = time_against_cublas({
                    "eager": lambda: torch.mm(x, w.T),
                    "compile": lambda: compiled_fn(x, w),
                    f"fuser (max err {err:.1e})": lambda: mod.forward(x, w, out=out)}, iters)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = prev
        flops = 2 * m * n * k
        for r in res.values():
            r["TFLOP/s"] = flops / (r["median_ms"] * 1e-3) / 1e12
        return res, (m * k + n * k + m * n) * x.element_size()
    return run


def bench_mma_variants(iters):
    """Every W2 tensor-core tiling compiled as .artifacts/mma_w2v_<p>_<tile>
    (tile BMxBNxBKxWMxWNxSTAGES), with the cuBLAS GEMMs of each type."""
    x32 = torch.rand(1024, 8192, device="cuda")
    lin = torch.nn.Linear(8192, 8192, device="cuda")
    w32, b32 = lin.weight.detach(), lin.bias.detach()
    x16, w16, b16 = (t.to(torch.bfloat16) for t in (x32, w32, b32))
    prev = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        with torch.no_grad():
            res = {"eager": time_fn(lambda: F.leaky_relu(lin(x32) * 2.0, 0.1), iters)}
            res["compile"] = res["eager"]
            res["cuBLAS TF32 GEMM alone"] = time_fn(lambda: torch.mm(x32, w32.T), iters)
            res["cuBLAS bf16 torch.mm alone"] = time_fn(lambda: torch.mm(x16, w16.T), iters)
            for ptx in sorted(ARTIFACTS.glob("mma_w2v_*.ptx")):
                bf16 = "_bf16_" in ptx.stem
                x, w, b = (x16, w16, b16) if bf16 else (x32, w32, b32)
                exact = F.leaky_relu((x.double() @ w.double().T + b.double()) * 2.0, 0.1)
                mod = load(ptx.stem)
                out = torch.full((1024, 8192), float("nan"), device="cuda", dtype=x.dtype)
                mod.forward(x, w, b, out=out)
                err = float((out.double() - exact).abs().max())
                res[f"fuser {ptx.stem} (max err {err:.1e})"] = time_fn(
                    lambda: mod.forward(x, w, b, out=out), iters)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev
    flops = 2 * 1024 * 8192 * 8192
    for r in res.values():
        r["TFLOP/s"] = flops / (r["median_ms"] * 1e-3) / 1e12
    return res, (1024 * 8192 * 2 + 8192 * 8192) * 4


def bench_group_norm(iters, stem, shape, groups):
    """Standalone nn.GroupNorm (fuser.group_norm, one kernel) on N x C x H x W."""
    mod = load(stem)
    gn = torch.nn.GroupNorm(groups, shape[1], eps=1e-5, device="cuda")
    x = torch.randn(*shape, device="cuda")
    gamma, beta = gn.weight.detach(), gn.bias.detach()
    out = torch.empty_like(x)
    with torch.no_grad():
        compiled_fn = torch.compile(gn)
        ours = lambda: mod.forward(x, gamma, beta, out=out)
        ours()
        torch.testing.assert_close(out, gn(x), rtol=1e-4, atol=1e-4)
        res = {"eager": time_fn(lambda: gn(x), iters),
               "compile": time_fn(lambda: compiled_fn(x), iters),
               "fuser": time_fn(ours, iters)}
    nbytes = 2 * x.numel() * 4
    del x, out
    torch.cuda.empty_cache()
    return res, nbytes


# key: (title, function(iters) -> ({implementation: timings}, bytes moved)).
# bench/suite.py declares its pointwise, GEMM and normalisation cases on these.
WORKLOADS = {
    "w1": ("W1 LeakyReLU 4096x393216", bench_w1),
    "w2": ("W2 Linear 8192 + *2 + LeakyReLU, batch 1024", bench_w2),
    "w2v": ("W2 tile variants", bench_w2_variants),
    "w3v": ("W3 kernel variants", bench_w3_variants),
    "w3": ("W3 Linear + GroupNorm(512) + LeakyReLU + x+x, batch 1024", bench_w3),
    "chain": ("seed chain (7 ops) 65536x1000", bench_chain),
    "w2tf32": ("W2 on tensor cores, TF32 (PyTorch with TF32 allowed)", bench_w2_tf32),
    "w2bf16": ("W2 on tensor cores, bf16 tensors", bench_w2_bf16),
    # The bare products against cuBLAS's (eager) at W2's shape and 4096^3.
    "mm_tf32": ("x @ W^T, 1024 x 8192 x 8192, TF32", bench_bare_gemm("tf32", 1024, 8192, 8192)),
    "mm_tf32_4096": ("x @ W^T, 4096^3, TF32", bench_bare_gemm("tf32", 4096, 4096, 4096)),
    "mm_bf16": ("x @ W^T, 1024 x 8192 x 8192, bf16", bench_bare_gemm("bf16", 1024, 8192, 8192)),
    "mm_bf16_4096": ("x @ W^T, 4096^3, bf16", bench_bare_gemm("bf16", 4096, 4096, 4096)),
    "mmav": ("W2 tensor-core tile variants", bench_mma_variants),
    # 65536-element groups (256 KB, more than shared memory holds) and
    # 1024-element ones.
    "gn": ("GroupNorm(32, 512) 32x512x64x64",
           lambda it: bench_group_norm(it, "group_norm_512x64x64", (32, 512, 64, 64), 32)),
    "gn_small": ("GroupNorm(32, 512) 32x512x8x8",
                 lambda it: bench_group_norm(it, "group_norm_512x8x8", (32, 512, 8, 8), 32)),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench/results/latest")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--only", default="w1,chain,w2,w3")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    device = torch.cuda.get_device_name()
    date = datetime.date.today().isoformat()
    print(f"[bench] {device}, torch {torch.__version__}, {date}", flush=True)
    results = {"device": device, "date": date, "torch": torch.__version__, "workloads": {}}
    for key in args.only.split(","):
        title, fn = WORKLOADS[key]
        print(f"[bench] {title} ...", flush=True)
        res, nbytes = fn(args.iters)
        ceiling = copy_ceiling(nbytes // 2)
        for name, r in res.items():
            r["GB/s"] = nbytes / (r["median_ms"] * 1e-3) / 1e9
        results["workloads"][key] = {"title": title, "bytes": nbytes,
                                     "copy_ceiling_GBps": ceiling, "timings": res}
        torch.cuda.empty_cache()

    lines = [f"# fuser benchmarks: {device}, {date}", "",
             f"PyTorch {torch.__version__}. CUDA events around one call, L2 flushed "
             f"(256 MB write) before each, 3 warm-up calls, {args.iters} timed calls. "
             "Ratios are reference / fuser (median); above 1 means fuser is faster.", "",
             "| workload | impl | median ms | mean ms | GB/s | % of copy ceiling | TFLOP/s | vs eager | vs torch.compile |",
             "|---|---|---|---|---|---|---|---|---|"]
    for w in results["workloads"].values():
        t = w["timings"]
        for name, r in t.items():
            ve = t["eager"]["median_ms"] / r["median_ms"]
            vc = t["compile"]["median_ms"] / r["median_ms"]
            tf = f"{r['TFLOP/s']:.1f}" if "TFLOP/s" in r else ""
            lines.append(f"| {w['title']} | {name} | {r['median_ms']:.3f} | {r['mean_ms']:.3f} | "
                         f"{r['GB/s']:.0f} | {100 * r['GB/s'] / w['copy_ceiling_GBps']:.1f}% | {tf} | "
                         f"{ve:.3f}x | {vc:.3f}x |")
        lines.append(f"| {w['title']} | copy ceiling | | | {w['copy_ceiling_GBps']:.0f} | 100% | | | |")
    md = "\n".join(lines) + "\n"
    (out / "results.md").write_text(md)
    # Also under the name bench/results/ keeps runs by: <device>-<date>.md.
    stem = "".join(c if c.isalnum() else "-" for c in device.replace("NVIDIA ", ""))
    (out / f"{stem}-{date}.md").write_text(md)
    (out / "results.json").write_text(json.dumps(results, indent=2))
    print(md)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 4))
        labels, vals, ceil = [], [], []
        for w in results["workloads"].values():
            for name, r in w["timings"].items():
                labels.append(f"{w['title'].split()[0]}\n{name}")
                vals.append(r["GB/s"])
                ceil.append(w["copy_ceiling_GBps"])
        ax.bar(range(len(vals)), vals, color="tab:blue", label="achieved")
        ax.scatter(range(len(vals)), ceil, color="tab:red", marker="_", s=400, label="copy ceiling")
        ax.set_xticks(range(len(vals)), labels, fontsize=7)
        ax.set_ylabel("GB/s (bytes read + written)")
        ax.set_title(f"fuser vs PyTorch, {device}, {date}")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "bandwidth.png", dpi=110)
    except Exception as e:  # plotting is a nicety
        print(f"[bench] no plot: {e}", file=sys.stderr)


if __name__ == "__main__":
    main()
