#!/usr/bin/env python3
"""fuser's benchmark suite: every case that is timed, in one table.

SUITE below declares each case (a topic, a name, what it is, how it runs
and its sizes); the runner times the selected cases with bench.py's harness
(CUDA events, the L2 flushed before each call, medians) on the GPU machine
and writes one table per topic. The topics:

  pointwise   W1 (LeakyReLU on 4096 x 393216) and the seed chain, against
              eager and torch.compile (bench.py's workloads)
  gemm        W2 and W3 (Linear 8192 -> 8192 with their fused epilogues) in
              fp32, tf32 and bf16 (bench.py's workloads), and the fp32 GEMM
              shape classes (the bare x * W^T, x @ W, torch.bmm) against
              cuBLAS SGEMM with TF32 off, each with its max |error| against
              float64 beside SGEMM's
  transpose   fuser's tiled transposed copy (pointwise_transpose) against
              its row kernel, x.t().contiguous() and a straight copy
  reduction   x.sum() of 2^26 floats (two stages) against torch and a copy
  norm        standalone nn.GroupNorm (bench.py's workloads)
  frontend    the seed models through fuser.torch (the ModelNew files of
              scripts/build-torch-artifacts.py) against eager, torch.compile
              and the hand-written .mlir, in interleaved rounds, with the
              median of each round's ratio (the clocks drift between rounds)
  training    one training step (forward, MSE loss, backward) of the training
              packages against eager and torch.compile, fp32, with data that
              does not require grad (the usual step) and with x requiring
              grad (dL/dx too), every implementation doing the same work

The artifacts come from scripts/build-gpu-artifacts.sh (run where MLIR is;
the gemm classes from scripts/build-mma-artifacts.sh, the frontend and
training packages from scripts/build-torch-artifacts.py) and travel in
.artifacts/ (FUSER_ARTIFACTS). A case whose artifacts are missing is skipped
with a note. Needs torch and fuser's runtime (build-gpu/python_packages, as
bench/gpu-check.sh builds it).

    python3 bench/suite.py --list
    python3 bench/suite.py [--only TOPIC|CASE,...] [--iters N] [--rounds R]
                           [--against DIR] [--out DIR]

--against DIR times the gemm classes of another build's artifacts too, in
interleaved rounds with this build's (a codegen change's A/B). Writes
<out>/suite.md and <out>/suite.json (default bench/results/latest).
"""

import argparse
import contextlib
import copy
import datetime
import json
import math
import statistics
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))


@dataclass(frozen=True)
class Case:
    topic: str
    name: str
    what: str
    run: str  # the runner: a key of RUNNERS
    params: dict = field(default_factory=dict)


def gemm(name, m, n, k, bound, layout="nt", batch=None, note=""):
    """A GEMM shape class: .artifacts/gemm_<name>, against cuBLAS SGEMM."""
    dims = f"{batch} x {m} x {n} x {k}" if batch else f"{m} x {n} x {k}"
    what = {"nt": "x * W^T", "nn": "x @ W (W stored K x N)", "bmm": "torch.bmm"}[layout]
    return Case("gemm", name, f"{what}, {dims}; bound by {bound}{note}", "gemm",
                dict(m=m, n=n, k=k, batch=batch, layout=layout))


def workload(topic, key, what):
    return Case(topic, key, what, "workload", dict(key=key))


SUITE = [
    workload("pointwise", "w1", "W1: LeakyReLU on 4096 x 393216 (6.4 GB in, 6.4 GB out)"),
    workload("pointwise", "chain", "the seed chain: 7 elementwise ops on 65536 x 1000"),
    workload("gemm", "w2", "W2: leaky_relu(Linear 8192 -> 8192 * 2), batch 1024, fp32"),
    workload("gemm", "w3", "W3: Linear 8192 + GroupNorm(512) + LeakyReLU + x + x, batch 1024, fp32"),
    workload("gemm", "w2tf32", "W2 in tf32 and 3xtf32, against PyTorch with TF32 allowed"),
    workload("gemm", "w2bf16", "W2 with bf16 tensors"),
    # The bare x * W^T with static sizes (scripts/build-mma-artifacts.sh's
    # gemm_<class>), default options: one per class of what bounds a GEMM.
    gemm("square", 4096, 4096, 4096, "compute"),
    gemm("tall_skinny", 32768, 1024, 1024, "compute"),
    gemm("small_k", 8192, 8192, 32, "memory (writes C)"),
    gemm("large_k", 256, 256, 131072, "compute (few tiles)"),
    gemm("large_k_nosplit", 256, 256, 131072, "compute (few tiles)",
         note="; compiled with split-k=1"),
    gemm("matvec", 8192, 1, 8192, "memory (reads x)"),
    gemm("linear_odd", 1000, 3000, 1000, "compute"),
    gemm("square_nn", 4096, 4096, 4096, "compute", layout="nn"),
    gemm("bmm", 1024, 1024, 1024, "compute", layout="bmm", batch=32),
    gemm("unaligned_nn", 8205, 5921, 2949, "compute", layout="nn",
         note="; K not a multiple of 4: operands copied with K padded for TMA"),
    gemm("unaligned_nt", 4096, 4096, 4095, "compute",
         note="; K not a multiple of 4: operands copied with K padded for TMA"),
    Case("transpose", "8192x8192", "transposed copy of 8192 x 8192 f32", "transpose",
         dict(rows=8192, cols=8192)),
    Case("transpose", "4096x16384", "transposed copy of 4096 x 16384 f32", "transpose",
         dict(rows=4096, cols=16384)),
    Case("transpose", "4097x1000", "transposed copy of 4097 x 1000 f32", "transpose",
         dict(rows=4097, cols=1000)),
    Case("transpose", "1000x4097", "transposed copy of 1000 x 4097 f32", "transpose",
         dict(rows=1000, cols=4097)),
    Case("reduction", "sum", "x.sum() of 2^26 f32 (test/gpu/Inputs/reduction_scalar.mlir)",
         "reduction", dict(n=1 << 26)),
    workload("norm", "gn", "nn.GroupNorm(32, 512) on 32 x 512 x 64 x 64 (groups of 65536)"),
    workload("norm", "gn_small", "nn.GroupNorm(32, 512) on 32 x 512 x 8 x 8 (groups of 1024)"),
    Case("frontend", "fe_w1", "W1's ModelNew", "frontend", dict(model="w1")),
    Case("frontend", "fe_w2", "W2's ModelNew", "frontend", dict(model="w2")),
    Case("frontend", "fe_w3", "W3's ModelNew", "frontend", dict(model="w3")),
    Case("training", "train_w1", "W1 training step (x is what trains)", "training",
         dict(package="w1", input_grad=True)),
    Case("training", "train_w2", "W2 training step, data without grad", "training",
         dict(package="w2", input_grad=False)),
    Case("training", "train_w3", "W3 training step, data without grad", "training",
         dict(package="w3", input_grad=False)),
    Case("training", "train_w2_dynamo", "W2 training step, data without grad, "
         "torch.compile(backend=\"fuser\")", "training",
         dict(package="w2", input_grad=False, dynamo=True)),
    Case("training", "train_w3_dynamo", "W3 training step, data without grad, "
         "torch.compile(backend=\"fuser\")", "training",
         dict(package="w3", input_grad=False, dynamo=True)),
    Case("training", "train_dropout_mlp_dynamo", "Linear 4096 -> 4096, relu, "
         "dropout(0.1), Linear 4096 -> 4096 at batch 1024, training step, "
         "torch.compile(backend=\"fuser\") split at the dropout", "training",
         dict(split="dropout_mlp_large", input_grad=False, dynamo=True)),
    Case("training", "train_w2_autocast", "W2 training step under torch.autocast "
         "bf16, data without grad", "training",
         dict(package="w2", input_grad=False, autocast=True)),
    Case("training", "train_w3_autocast", "W3 training step under torch.autocast "
         "bf16, data without grad", "training",
         dict(package="w3", input_grad=False, autocast=True)),
    Case("training", "train_w2_dx", "W2 training step, x requires grad (dL/dx too)",
         "training", dict(package="w2", input_grad=True)),
    Case("training", "train_w3_dx", "W3 training step, x requires grad (dL/dx too)",
         "training", dict(package="w3", input_grad=True)),
    # Blocks of real models (test/gpu/Inputs/model_blocks.py) at width 768,
    # batch 8: one training step each, in eval mode (their dropouts are 0).
    *[Case("training", f"train_{block}", f"{block} training step (width 768, batch 8), "
           "data without grad", "training", dict(package=f"{block}_base", input_grad=False))
      for block in ("bert_layer", "gpt2_block", "llama_mlp", "llama_decoder_layer",
                    "vit_layer", "timm_vit_block", "timm_mlp", "timm_swiglu_packed")],
    # timm's convolutional blocks at their base size, in train mode (BatchNorm's
    # batch statistics), partitioned: convolutions in PyTorch, the rest
    # through torch.compile(backend="fuser") from the graph packages.
    *[Case("training", f"train_{block}", f"{block} training step (batch 8, train mode), "
           "data without grad, partitioned at its convolutions", "training",
           dict(partitioned=f"{block}_base", input_grad=False, dynamo=True))
      for block in ("timm_convnext_block", "timm_resnet_basic_block")],
]
TOPICS = list(dict.fromkeys(c.topic for c in SUITE))


class Skip(Exception):
    """The case cannot run here (its artifacts are missing)."""


def result(reference, timings, **extra):
    """A case's result: per implementation its timings (median_ms, ...,
    optionally GB/s, TFLOP/s, max_err), and the implementation the ratios
    are taken against."""
    return {"reference": reference, "timings": timings, **extra}


# Runners: each takes (case, args) and returns result(...).

def run_workload(case, args):
    import bench

    _, fn = bench.WORKLOADS[case.params["key"]]
    try:
        res, nbytes = fn(args.iters)
    except FileNotFoundError as e:
        raise Skip(str(e))
    for r in res.values():
        r["GB/s"] = nbytes / (r["median_ms"] * 1e-3) / 1e9
    return result("eager", res)


def run_gemm(case, args):
    import torch

    import bench

    p = case.params
    stem = f"gemm_{case.name}"
    try:
        mod = bench.load(stem)
        before = bench.load(stem, args.against) if args.against else None
    except FileNotFoundError as e:
        raise Skip(str(e))
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(0)

    def uniform(*shape, scale=1.0):
        return (torch.rand(*shape, device="cuda", generator=gen) * 2 - 1) * scale

    m, n, k, scale = p["m"], p["n"], p["k"], 1 / math.sqrt(p["k"])
    if p["layout"] == "nt":
        x, w, cublas = uniform(m, k), uniform(n, k, scale=scale), lambda a, b: a @ b.T
    elif p["layout"] == "nn":
        x, w, cublas = uniform(m, k), uniform(k, n, scale=scale), torch.mm
    else:
        x, w, cublas = (uniform(p["batch"], m, k), uniform(p["batch"], k, n, scale=scale),
                        torch.bmm)
    ref = cublas(x.double(), w.double())
    out = torch.full(ref.shape, float("nan"), device="cuda")
    mod.forward(x, w, out=out)
    errors = {"fuser": float((out.double() - ref).abs().max()),
              "cuBLAS SGEMM": float((cublas(x, w).double() - ref).abs().max())}
    fns = {"fuser": lambda: mod.forward(x, w, out=out), "cuBLAS SGEMM": lambda: cublas(x, w)}
    if before is not None:
        before.forward(x, w, out=out)
        errors[f"fuser, {args.against}"] = float((out.double() - ref).abs().max())
        fns[f"fuser, {args.against}"] = lambda: before.forward(x, w, out=out)
    flops = 2 * ref.numel() * k
    del ref
    if before is None:
        res = {name: bench.time_fn(fn, args.iters) for name, fn in fns.items()}
    else:
        res = bench.time_interleaved(fns, args.iters, rounds=args.rounds)
    for name, r in res.items():
        r["TFLOP/s"] = flops / (r["median_ms"] * 1e-3) / 1e12
        r["max_err"] = errors[name]
    del x, w, out
    torch.cuda.empty_cache()
    return result("cuBLAS SGEMM", res)


def run_transpose(case, args):
    import torch

    import bench

    try:
        mod = bench.load("transpose")
    except FileNotFoundError as e:
        raise Skip(str(e))
    rows, cols = case.params["rows"], case.params["cols"]
    x = torch.randn(rows, cols, device="cuda")
    out = torch.empty(cols, rows, device="cuda")
    out_rows = torch.empty_like(out)
    flat = torch.empty_like(x)
    mod.copy(x, out=out)
    mod.copy_rows(x, out=out_rows)
    if not (torch.equal(out, x.t()) and torch.equal(out_rows, x.t())):
        raise AssertionError(f"{case.name}: fuser's transposed copy differs from x.t()")
    res = bench.time_interleaved({
        "fuser tiled": lambda: mod.copy(x, out=out),
        "fuser rows": lambda: mod.copy_rows(x, out=out_rows),
        "torch x.t().contiguous()": lambda: x.t().contiguous(),
        "straight copy": lambda: flat.copy_(x),
    }, args.iters, rounds=args.rounds)
    nbytes = 2 * x.numel() * x.element_size()
    for r in res.values():
        r["GB/s"] = nbytes / (r["median_ms"] * 1e-3) / 1e9
    del x, out, out_rows, flat
    torch.cuda.empty_cache()
    return result("torch x.t().contiguous()", res)


def run_reduction(case, args):
    import torch

    import bench

    try:
        mod = bench.load("reduction_scalar")
    except FileNotFoundError as e:
        raise Skip(str(e))
    x = torch.randn(case.params["n"], device="cuda")
    out = torch.empty((), device="cuda")
    flat = torch.empty_like(x)
    mod.sum_static(x, out=out)
    err = abs(float(out) - float(x.double().sum()))
    torch_err = abs(float(x.sum()) - float(x.double().sum()))
    res = bench.time_interleaved({
        "fuser two-stage": lambda: mod.sum_static(x, out=out),
        "torch x.sum()": lambda: x.sum(),
        "device copy (read + write)": lambda: flat.copy_(x),
    }, args.iters, rounds=args.rounds)
    nbytes = x.numel() * x.element_size()
    for name, r in res.items():
        moved = 2 * nbytes if name.startswith("device copy") else nbytes
        r["GB/s"] = moved / (r["median_ms"] * 1e-3) / 1e9
    res["fuser two-stage"]["max_err"] = err
    res["torch x.sum()"]["max_err"] = torch_err
    del x, flat
    torch.cuda.empty_cache()
    return result("torch x.sum()", res)


HAND_WRITTEN = {"w1": "w1_leaky_relu_static", "w2": "w2_linear_scale_leaky",
                "w3": "w3_linear_groupnorm"}


def hand_written_args(model, ref, x):
    """The arguments of a seed model's hand-written example (HAND_WRITTEN):
    the input and the eager model's parameters."""
    import torch

    if model == "w1":
        return (x[0],)
    if model == "w2":
        return (x[0], ref.gemm.weight, ref.gemm.bias)
    lin, gn = [m for m in ref.modules() if isinstance(m, (torch.nn.Linear, torch.nn.GroupNorm))]
    return (x[0], lin.weight, lin.bias, gn.weight, gn.bias)


def paired_ratio(res, ref_key, new_key):
    """The median over rounds of ref / new within each round: both timed
    back to back in the same clock state."""
    pairs = zip(res[ref_key]["round_medians_ms"], res[new_key]["round_medians_ms"])
    return statistics.median(a / b for a, b in pairs)


def run_frontend(case, args):
    import torch

    import bench

    name = case.params["model"]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        m = bench.model_new(name)
        hw = bench.load(HAND_WRITTEN[name])
    except FileNotFoundError as e:
        raise Skip(str(e))
    torch.manual_seed(0)
    ref = m.Model(*m.get_init_inputs()).cuda().eval()
    torch.manual_seed(0)
    new = m.ModelNew(*m.get_init_inputs()).cuda().eval()
    x = [t.cuda() for t in m.get_inputs()]
    with torch.no_grad():
        expected, got = ref(*x), new(*x)
        err = 0.0
        for g, e in zip(got.split(256), expected.split(256)):  # W1 is 6.4 GB
            err = max(err, float((g.double() - e.double()).abs().max()))
            torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-4)
        del expected, got
        compiled = torch.compile(ref)
        hw_args = hand_written_args(name, ref, x)
        res = bench.time_interleaved({
            "eager": lambda: ref(*x), "torch.compile": lambda: compiled(*x),
            "fuser.torch ModelNew": lambda: new(*x),
            "fuser, hand-written .mlir": lambda: hw.forward(*hw_args)}, args.iters, args.rounds)
    res["fuser.torch ModelNew"]["max_err"] = err
    paired = {k: paired_ratio(res, k, "fuser.torch ModelNew")
              for k in ("eager", "torch.compile", "fuser, hand-written .mlir")}
    del ref, new, x, compiled
    torch.cuda.empty_cache()
    return result("eager", res, paired_ratios=paired,
                  note="paired ratios (median of each round's ratio): " + ", ".join(
                      f"ModelNew vs {k} {v:.3f}x" for k, v in paired.items()))


def time_steps(step, params, iters, warmup=3):
    """Mean and median of one training step in ms: .grad set to None
    before each step (outside the timed region), the L2 flushed, CUDA
    events around the step."""
    import torch

    import bench

    for _ in range(warmup):
        for p in params:
            p.grad = None
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        for p in params:
            p.grad = None
        bench.flush_l2()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return {"mean_ms": statistics.fmean(times), "median_ms": statistics.median(times),
            "min_ms": min(times), "iters": iters}


def run_training(case, args):
    import torch

    import bench

    block = case.params.get("partitioned")
    name = case.params.get("package") or case.params.get("split") or block
    index = bench.ARTIFACTS / "torch" / "index.json"
    training = json.loads(index.read_text()).get("training", {}) if index.exists() else {}
    split = "split" in case.params
    if name not in training and not split and not block:
        raise Skip(f"no training package {name}: run scripts/build-torch-artifacts.py "
                   "--only-training where torch-mlir is")
    import fuser.torch as ft

    sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))
    import torch_models

    import model_blocks

    entry = training.get(name) or {
        "shape": list(model_blocks.shape(name) if block else torch_models.SPLIT[name][2])}
    dynamo = case.params.get("dynamo", False)
    if dynamo and name not in json.loads(index.read_text()).get("dynamo", {}):
        raise Skip(f"no dynamo graph packages for {name}: run "
                   "scripts/build-torch-artifacts.py where torch-mlir is")
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        torch.manual_seed(0)
        if block:
            model = model_blocks.build(name, seed=None).cuda().train()
        elif split:
            model = torch_models.build_split(name, device="cuda")
        else:
            model = torch_models.problem(entry["seed"]).Model(*entry["init"]).cuda()
        if dynamo:
            # The graph packages compiled where torch-mlir is.
            import os

            import fuser.torch.dynamo as fd
            os.environ["FUSER_CACHE_DIR"] = str(bench.ARTIFACTS / "torch" / "dynamo")
            torch._dynamo.reset()
            fd.COMPILED.clear()
            fused = torch.compile(model, backend="fuser", dynamic=False,
                                  options={"fallback": False})
        else:
            fused = ft.load(bench.ARTIFACTS / "torch" / "training" / f"{name}.fuser",
                            module=model)
        eager = copy.deepcopy(model)
        # The users' step: forward, MSE loss against a target, backward.
        # Every implementation gets the same x: a data batch that does not
        # require grad (parameter gradients only), or one that does (dL/dx
        # too); fuser's module picks the pair for it per call.
        x = torch.rand(entry["shape"], device="cuda").requires_grad_(
            case.params["input_grad"])
        with torch.no_grad():
            target = torch.randn_like(model(x))
        nets = {"fuser": fused, "eager": eager,
                "torch.compile": torch.compile(copy.deepcopy(model))}
        mse = torch.nn.functional.mse_loss
        # Under autocast as users write it: forward and loss in the
        # context, backward after it.
        autocast = (torch.autocast("cuda", dtype=torch.bfloat16)
                    if case.params.get("autocast") else contextlib.nullcontext())

        def step(net):
            with autocast:
                loss = mse(net(x), target)
            loss.backward()
        res, failed = {}, ""
        for label, net in nets.items():
            params = list(net.parameters()) + [x] * x.requires_grad
            try:
                res[label] = time_steps(lambda net=net: step(net), params, args.iters)
            except Exception as e:  # noqa: BLE001 - inductor may be absent
                if label == "fuser":
                    raise
                failed += f"; {label} failed ({type(e).__name__}: {e})"[:160]
        if dynamo:
            graphs = [r for r in fd.COMPILED if r["kind"] != "split"]
            kernels = [{v: len(k) for v, k in r["kernels"].items()} for r in graphs]
            assert all(r["loaded"] for r in graphs), "a graph compiled here"
        else:
            ran = fused._fuser_training_variant(
                fused._fuser_tensors((x,), {}),
                "bf16" if case.params.get("autocast") else None)
            back = fused._fuser_backward(ran)
            kernels = {v.name: len(v.kernels) for v in (ran, back)}
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    del model, fused, eager, nets, x, target
    torch.cuda.empty_cache()
    return result("eager", res, note=f"shape {entry['shape']}, fuser's pair for this x: kernels "
                  f"{kernels}{failed}")


RUNNERS = {"workload": run_workload, "gemm": run_gemm, "transpose": run_transpose,
           "reduction": run_reduction, "frontend": run_frontend, "training": run_training}


def selected(only):
    if not only:
        return SUITE
    keys = set(only.split(","))
    unknown = keys - set(TOPICS) - {c.name for c in SUITE}
    if unknown:
        sys.exit(f"unknown topic or case: {', '.join(sorted(unknown))} "
                 f"(topics: {', '.join(TOPICS)}; --list names the cases)")
    return [c for c in SUITE if c.topic in keys or c.name in keys]


def fmt(v, spec):
    return format(v, spec) if isinstance(v, (int, float)) else ""


def report(header, results):
    """One markdown table per topic: each case's implementations with the
    ratio reference time / implementation time (above 1: faster than the
    reference)."""
    lines = header[:]
    for topic in TOPICS:
        cases = [r for r in results if r["topic"] == topic]
        if not cases:
            continue
        lines += ["", f"## {topic}", "",
                  "| case | implementation | median ms | mean ms | reference / time "
                  "| GB/s | TFLOP/s | max abs err |", "|---|---|---|---|---|---|---|---|"]
        for c in cases:
            if "skipped" in c or "failed" in c:
                why = f"skipped: {c['skipped']}" if "skipped" in c else f"FAILED: {c['failed']}"
                lines.append(f"| {c['name']} | {why} | | | | | | |")
                continue
            ref = c["timings"][c["reference"]]["median_ms"]
            for impl, t in c["timings"].items():
                lines.append(
                    f"| {c['name']} | {impl} | {t['median_ms']:.4f} | {t['mean_ms']:.4f} | "
                    f"{ref / t['median_ms']:.3f}x vs {c['reference']} | {fmt(t.get('GB/s'), '.0f')} | "
                    f"{fmt(t.get('TFLOP/s'), '.1f')} | {fmt(t.get('max_err'), '.2e')} |")
        notes = [f"- {c['name']}: {c['note']}" for c in cases if c.get("note")]
        if notes:
            lines += [""] + notes
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--only", default="", help="comma-separated topics or case names")
    ap.add_argument("--iters", type=int, default=20, help="timed calls (per round)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    ap.add_argument("--against", type=Path, default=None,
                    help="another build's artifact directory (gemm classes), timed interleaved")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "latest")
    args = ap.parse_args()
    cases = selected(args.only)
    if args.list:
        for c in cases:
            print(f"{c.topic:10s} {c.name:22s} {c.what}")
        return

    import torch

    device = torch.cuda.get_device_name()
    date = datetime.date.today().isoformat()
    print(f"[suite] {device}, torch {torch.__version__}, {date}, {len(cases)} cases", flush=True)
    results, failed = [], 0
    for c in cases:
        print(f"[suite] {c.topic} {c.name}: {c.what}", flush=True)
        entry = {"topic": c.topic, "name": c.name, "what": c.what}
        try:
            entry.update(RUNNERS[c.run](c, args))
        except Skip as e:
            entry["skipped"] = str(e)
            print(f"[suite]   skipped: {e}", flush=True)
        except Exception as e:  # noqa: BLE001 - the other cases still run
            traceback.print_exc()
            entry["failed"] = f"{type(e).__name__}: {e}"[:300]
            failed += 1
        results.append(entry)
        torch.cuda.empty_cache()
    header = [f"# fuser suite: {device}, {date}", "",
              f"PyTorch {torch.__version__}; `bench/suite.py --only {args.only or 'all'} "
              f"--iters {args.iters} --rounds {args.rounds}`. CUDA events around one call, "
              "the L2 flushed (256 MB write) before each, medians. The ratio is the case's "
              "reference time over the implementation's: above 1 is faster than the reference."]
    md = report(header, results)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "suite.md").write_text(md)
    (args.out / "suite.json").write_text(json.dumps(
        {"device": device, "date": date, "torch": torch.__version__, "cases": results}, indent=2))
    print(md)
    if failed:
        sys.exit(f"[suite] {failed} case(s) failed")


if __name__ == "__main__":
    main()
