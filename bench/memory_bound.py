#!/usr/bin/env python3
"""Memory-bound models at their real sizes: fuser against eager and
torch.compile, each kernel kind's achieved bandwidth against its traffic
floor and the device copy of the same run.

Each model is a PyTorch module users write (pointwise, broadcasts, row and
middle-dimension reductions with value and index, softmax, norms, pooling,
losses). Where torch-mlir is, `--build` compiles each with
`fuser.torch.compile` into .artifacts/memory_bound/<name>.fuser (a model the
front end refuses is recorded with its error). On the GPU machine the
script loads them and times fuser, eager and torch.compile interleaved by
the users' protocol (CUDA events, L2 flushed, mean). "correct" is what
users check: allclose to eager at 1e-4 (NaN where eager has NaN, indices
exactly); fuser's and eager's max errors against a float64 run of the
model are reported beside it ("f64" where eager is itself further than
1e-4 from float64 and fuser is at least as close). The floor is the bytes a model must move:
its inputs read once and its outputs written once; TB/s is that floor over
fuser's mean time.

    PYTHONPATH=build/python_packages .venv/bin/python bench/memory_bound.py --build
    FUSER_ARTIFACTS=.artifacts python3 bench/memory_bound.py [--only a,b] [--out DIR]
"""

import argparse
import json
import math
import sys
import traceback
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import ARTIFACTS, kernel_times, time_interleaved  # noqa: E402

OUT = ARTIFACTS / "memory_bound"
TOL = 1e-4


class Fn(torch.nn.Module):
    """forward(*xs) = fn(*xs)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class Targets(tuple):
    """An input of class indices (int64 in [0, classes)) of this shape."""

    def __new__(cls, shape, classes):
        self = super().__new__(cls, shape)
        self.classes = classes
        return self


def example(s, device, make=torch.randn):
    """The input of shape entry `s` on `device` ("meta": its type alone)."""
    if isinstance(s, Targets):
        if device == "meta":
            return torch.empty(s, dtype=torch.long, device="meta")
        return torch.randint(0, s.classes, s, device=device)
    return torch.empty(s, device="meta") if device == "meta" else make(s, device=device)


def rms_norm(x):
    return x / torch.sqrt(torch.mean(x * x, dim=1, keepdim=True) + 1e-5)


class RMSNorm(torch.nn.Module):
    """RMSNorm over the last dimension with a weight, as LLMs write it."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.rand(dim) + 0.5)

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def triplet(a, p, n):
    return F.triplet_margin_loss(a, p, n, margin=1.0)


W1 = (4096, 393216)
ROWS = (4096, 393216)
MIDDLE = (128, 4096, 4095)
NCHW = (112, 64, 512, 512)

# name -> (module factory, input shapes, kind)
MODELS = {
    "leaky_relu": (lambda: Fn(lambda x: F.leaky_relu(x, 0.01)), [W1], "pointwise"),
    "relu": (lambda: Fn(torch.relu), [W1], "pointwise"),
    "gelu": (lambda: Fn(F.gelu), [W1], "pointwise"),
    "sigmoid": (lambda: Fn(torch.sigmoid), [W1], "pointwise"),
    "swish": (lambda: Fn(lambda x: x * torch.sigmoid(x)), [W1], "pointwise"),
    "softsign": (lambda: Fn(lambda x: x / (1 + x.abs())), [W1], "pointwise"),
    "scale": (lambda: Fn(lambda x: x * 3.14), [(65536, 16384)], "pointwise"),
    "broadcast_mul": (lambda: Fn(lambda a, b: a.unsqueeze(1) * b),
                      [(4096,), (4096, 4096)], "broadcast"),
    "softmax": (lambda: Fn(lambda x: torch.softmax(x, dim=1)), [ROWS], "softmax"),
    "log_softmax": (lambda: Fn(lambda x: torch.log_softmax(x, dim=1)), [ROWS], "softmax"),
    # Rows that fit on chip: attention scores, LLM hidden states.
    "softmax_1024": (lambda: Fn(lambda x: torch.softmax(x, dim=-1)), [(32768, 1024)],
                     "softmax"),
    "softmax_4096": (lambda: Fn(lambda x: torch.softmax(x, dim=-1)), [(8192, 4096)],
                     "softmax"),
    "log_softmax_1024": (lambda: Fn(lambda x: torch.log_softmax(x, dim=-1)),
                         [(32768, 1024)], "softmax"),
    # Rows of 1000 classes (an ImageNet classifier's): 250 vectors over 32
    # threads, the last past the row for some.
    "softmax_1000": (lambda: Fn(lambda x: torch.softmax(x, dim=-1)), [(32768, 1000)],
                     "softmax"),
    "logsumexp_1000": (lambda: Fn(lambda x: torch.logsumexp(x, dim=1)),
                       [(32768, 1000)], "softmax"),
    "sum_dim1": (lambda: Fn(lambda x: torch.sum(x, dim=1)), [MIDDLE], "reduction"),
    "mean_dim1": (lambda: Fn(lambda x: torch.mean(x, dim=1)), [MIDDLE], "reduction"),
    "amax_dim1": (lambda: Fn(lambda x: torch.amax(x, dim=1)), [MIDDLE], "reduction"),
    "max_dim1": (lambda: Fn(lambda x: torch.max(x, dim=1)), [MIDDLE], "argreduction"),
    "argmax_dim1": (lambda: Fn(lambda x: torch.argmax(x, dim=1)), [MIDDLE], "argreduction"),
    "argmin_dim1": (lambda: Fn(lambda x: torch.argmin(x, dim=1)), [MIDDLE], "argreduction"),
    "argmax_rows": (lambda: Fn(lambda x: torch.argmax(x, dim=1)), [(16384, 16384)],
                    "argreduction"),
    "layer_norm": (lambda: torch.nn.LayerNorm((64, 256, 256)), [(16, 64, 256, 256)], "norm"),
    "group_norm": (lambda: torch.nn.GroupNorm(8, 64), [NCHW], "norm"),
    "rms_norm": (lambda: Fn(rms_norm), [NCHW], "norm"),
    "rms_norm_rows": (lambda: RMSNorm(4096), [(16384, 4096)], "norm"),
    "l2_normalize_rows": (lambda: Fn(lambda x: F.normalize(x, dim=-1)), [(32768, 1024)],
                          "norm"),
    "frobenius_norm": (lambda: Fn(lambda x: x / torch.norm(x, p="fro")),
                       [(112, 64, 512, 512)], "norm"),
    "l2_norm_rows": (lambda: Fn(lambda x: x / torch.norm(x, p=2, dim=1, keepdim=True)),
                     [(32768, 65535)], "norm"),
    "avg_pool2d": (lambda: torch.nn.AvgPool2d(3, stride=1, padding=0),
                   [(16, 64, 256, 256)], "pooling"),
    "max_pool2d": (lambda: torch.nn.MaxPool2d(3, stride=2, padding=1),
                   [(16, 64, 256, 256)], "pooling"),
    "avg_pool1d": (lambda: torch.nn.AvgPool1d(4, stride=2, padding=1),
                   [(64, 256, 16384)], "pooling"),
    # Matrix-vector products: sums over K (the reduction kernel), the
    # matrix read once.
    "matvec": (lambda: Fn(lambda a, x: a @ x), [(2048, 1 << 20), (1 << 20, 1)], "matvec"),
    "linear_to_one": (lambda: torch.nn.Linear(8192, 1), [(65536, 8192)], "matvec"),
    "vecmat": (lambda: Fn(lambda x, a: x @ a), [(1, 65536), (65536, 8192)], "matvec"),
    # Scans (torch-mlir's tm_tensor.scan): KernelBench's cumsum rows, long
    # rows, many short ones, a column scan, masked and reversed forms.
    "cumsum": (lambda: Fn(lambda x: torch.cumsum(x, dim=1)), [(128, 4000)], "scan"),
    "cumsum_long_rows": (lambda: Fn(lambda x: torch.cumsum(x, dim=1)), [(4096, 32768)],
                         "scan"),
    "cumsum_short_rows": (lambda: Fn(lambda x: torch.cumsum(x, dim=-1)), [(1 << 20, 64)],
                          "scan"),
    "cumsum_cols": (lambda: Fn(lambda x: torch.cumsum(x, dim=0)), [(4096, 32768)], "scan"),
    "cumprod": (lambda: Fn(lambda x: torch.cumprod(x, dim=1)), [(4096, 32768)], "scan"),
    "masked_cumsum": (lambda: Fn(lambda x, m: torch.cumsum(x * (m > 0), dim=1)),
                      [(4096, 32768), (4096, 32768)], "scan"),
    "reverse_cumsum": (lambda: Fn(lambda x: torch.cumsum(x.flip(1), dim=1).flip(1)),
                       [(4096, 32768)], "scan"),
    "huber_loss": (lambda: Fn(F.smooth_l1_loss), [(8192, 8192), (8192, 8192)], "loss"),
    "triplet_loss": (lambda: Fn(triplet), [(32768, 8192)] * 3, "loss"),
    # The count of targets kept (ignore_index) sums an i1 mask.
    "cross_entropy": (lambda: Fn(F.cross_entropy), [(32768, 1000), Targets((32768,), 1000)],
                      "loss"),
    "cross_entropy_smooth": (lambda: Fn(lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1,
                                                                      ignore_index=7)),
                             [(32768, 1000), Targets((32768,), 1000)], "loss"),
    "nll_loss": (lambda: Fn(lambda x, t: F.nll_loss(F.log_softmax(x, 1), t)),
                 [(32768, 1000), Targets((32768,), 1000)], "loss"),
    # Gathers: an embedding lookup (GPT-2's vocabulary, 16384 tokens of 1024
    # features) and a concatenation along the features.
    "embedding": (lambda: Fn(lambda t, w: F.embedding(t, w)),
                  [Targets((16384,), 50257), (50257, 1024)], "gather"),
    "cat_features": (lambda: Fn(lambda a, b: torch.cat([a, b], dim=1)),
                     [(16384, 4096), (16384, 4096)], "gather"),
}


def build(names, models=None, out=OUT):
    """Compiles models[name] (MODELS by default) into <out>/<name>.fuser,
    or records its error in <out>/<name>.error.txt."""
    import fuser.torch as ft
    models = models or MODELS
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        factory, shapes, _ = models[name]
        failed = out / f"{name}.error.txt"
        failed.unlink(missing_ok=True)
        try:
            c = ft.compile(factory(), tuple(example(s, "meta") for s in shapes),
                           fallback=False, report=False)
            if isinstance(c, ft.PartitionedModule):
                build_partitioned(name, factory, shapes, out)
                continue
            ft.save(c, out / f"{name}.fuser")
            print(f"[{out.name}] {name}: {c.fuser_kernels}", flush=True)
        except Exception as e:  # recorded: the GPU run reports it
            failed.write_text(f"{type(e).__name__}: {e}\n")
            print(f"[{out.name}] {name}: FAILED {type(e).__name__}: "
                  f"{str(e).splitlines()[0] if str(e) else ''}", flush=True)


def build_partitioned(name, factory, shapes, out):
    """A model with ops left to PyTorch (convolutions): fuser's graphs
    compiled into the graph cache <out>/<name>.graphs, which the GPU run
    loads through torch.compile(backend="fuser"). The first call compiles
    them; it runs here on the CPU, each graph's fx graph in place of its
    kernels (there is no GPU)."""
    import shutil
    import warnings

    import fuser.torch as ft
    from fuser.torch._package import graphs_in_place_of_kernels

    cache = out / f"{name}.graphs"
    shutil.rmtree(cache, ignore_errors=True)
    with graphs_in_place_of_kernels():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            c = ft.compile(factory(), tuple(example(s, "meta") for s in shapes),
                           cache=cache, fallback=False)
            with torch.no_grad():
                c(*[example(s, "cpu", torch.randn) for s in shapes])
    torch._dynamo.reset()
    print(f"[{out.name}] {name}: partitioned, {c.fuser_kernels}; in PyTorch: "
          f"{[op[0] for op in c.fuser_pytorch_ops]}", flush=True)


def load_partitioned(model, cache):
    """The GPU side of build_partitioned: the model through
    torch.compile(backend="fuser"), its graphs from the cache (as
    fuser.torch.compile's PartitionedModule runs them)."""
    import fuser.torch.dynamo  # noqa: F401 - registers "fuser"

    return torch.compile(model, backend="fuser", dynamic=False,
                         options={"cache": str(cache), "fallback": False})


def flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def nbytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


def check(got, want64, want_eager):
    """What users check: allclose to eager (atol = rtol = TOL, NaN where
    eager has NaN; indices exactly). Also each one's max error against
    float64, fuser's and eager's. Where eager itself is further than that
    from float64 (a long fp32 scan), no other summation order can pass, so
    "f64" says fuser is at least as close to float64 as eager is (NaN where
    eager has NaN, indices exactly); False otherwise."""
    ok, exact, worst, worst_eager = True, True, 0.0, 0.0
    for g, w, e in zip(flat(got), flat(want64), flat(want_eager)):
        if not g.dtype.is_floating_point:
            exact &= torch.equal(g, e)
            continue
        ok &= bool(torch.allclose(g, e, atol=TOL, rtol=TOL, equal_nan=True))
        exact &= torch.equal(g.isnan(), e.isnan())
        finite = torch.isfinite(w)
        if finite.any():
            worst = max(worst, float((g.double() - w).abs()[finite].max()))
            worst_eager = max(worst_eager, float((e.double() - w).abs()[finite].max()))
    if not exact:
        return False, worst, worst_eager
    if ok:
        return True, worst, worst_eager
    return ("f64" if worst_eager > TOL and worst <= worst_eager else False), worst, worst_eager


def copy_tbps(nbytes_total, iters):
    n = max(1, nbytes_total // 8)  # read half, write half: the same bytes
    src = torch.empty(n, dtype=torch.float64, device="cuda")
    dst = torch.empty_like(src)
    t = time_interleaved({"copy": lambda: dst.copy_(src)}, iters, rounds=1)["copy"]
    del src, dst
    return 2 * n * 8 / (t["mean_ms"] * 1e-3) / 1e12


def read_tbps(nbytes_total, iters):
    """The device's read bandwidth over `nbytes_total` bytes, the users'
    timing: PyTorch's sum of a float32 tensor that size (a read and a
    scalar written), the reference for a reduction's kernels."""
    src = torch.empty(max(1, nbytes_total // 4), dtype=torch.float32, device="cuda")
    t = time_interleaved({"read": lambda: src.sum()}, iters, rounds=1)["read"]
    del src
    return nbytes_total / (t["mean_ms"] * 1e-3) / 1e12


# A model whose outputs are at most this share of its bytes is a reduction:
# its bandwidth is measured against the device's read as well.
READ_BOUND_SHARE = 1 / 8


def run_one(name, iters, rounds, with_compile, models=None, out=OUT):
    import fuser.torch as ft
    factory, shapes, kind = (models or MODELS)[name]
    row = {"name": name, "kind": kind, "shapes": shapes}
    err = out / f"{name}.error.txt"
    path = out / f"{name}.fuser"
    graphs = out / f"{name}.graphs"
    if err.exists():
        row["error"] = err.read_text().strip().splitlines()[0]
        return row
    if not path.exists() and not graphs.exists():
        row["error"] = "no package (run with --build where torch-mlir is)"
        return row
    torch.manual_seed(sum(map(ord, name)))
    model = factory().cuda()
    # Affines that matter: weights around 1, biases around 0 (a block of a
    # real model keeps its own initialisation).
    with torch.no_grad():
        for pname, p in model.named_parameters() if kind not in ("block", "gemm") else ():
            p.copy_(torch.randn_like(p) * 0.5 + (1.0 if pname.endswith("weight") else 0.0))
    # Both signs, except for matrix-vector products: their sums over K of a
    # million terms of both signs cancel to near 0 in places, where two
    # correct fp32 orders (cuBLAS's and any other) differ by more than
    # 1e-4; users' inputs there are KernelBench's torch.rand, as for the
    # GEMM models (bench/gemm_models.py).
    make = torch.rand if kind in ("matvec", "gemm") else torch.randn
    xs = [example(s, "cuda", make) for s in shapes]
    if graphs.exists():
        import fuser.torch.dynamo as fd
        fd.COMPILED.clear()
        fused = load_partitioned(model, graphs)
    else:
        fused = ft.load(path, module=model)
    with torch.no_grad():
        got = fused(*xs)
        want = model(*xs)
        model64 = factory().cuda().double()
        model64.load_state_dict({k: v.double() for k, v in model.state_dict().items()})
        want64 = model64(*[x.double() if x.is_floating_point() else x for x in xs])
        del model64
    ok, worst, worst_eager = check(got, want64, want)
    if graphs.exists():
        parts = [r for r in fd.COMPILED if r["kind"] != "split"]
        if not parts or any(not r.get("loaded") for r in parts):
            raise RuntimeError(f"{name}: a graph did not load from {graphs}: {parts}")
        kernels = {f"graph{i}": r["kernels"] for i, r in enumerate(parts)}
    else:
        kernels = fused.fuser_kernels
    row.update(correct=ok, max_error=worst, eager_max_error=worst_eager,
               kernels=kernels, choices=kernel_choices(fused))
    floor = nbytes(xs) + nbytes(flat(got))
    out_bytes = nbytes(flat(got))
    del got, want, want64
    torch.cuda.empty_cache()
    fns = {"fuser": lambda: fused(*xs), "eager": lambda: model(*xs)}
    if with_compile:
        compiled = torch.compile(model)
        with torch.no_grad():
            compiled(*xs)
        fns["compile"] = lambda: compiled(*xs)
    with torch.no_grad():
        res = time_interleaved(fns, iters, rounds)
        per_kernel = kernel_times(lambda: fused(*xs), 3)
    row["ms"] = {k: v["mean_ms"] for k, v in res.items()}
    row["floor_bytes"] = floor
    row["tbps"] = floor / (row["ms"]["fuser"] * 1e-3) / 1e12
    row["copy_tbps"] = copy_tbps(floor, iters)
    if out_bytes <= READ_BOUND_SHARE * floor:
        row["read_tbps"] = read_tbps(floor, iters)
    row["fuser_kernels_us"] = {k: v[1] for k, v in per_kernel.items()}
    row["fused_share"] = fused_share(row["fuser_kernels_us"], kernels)
    for ref in ("eager", "compile"):
        if ref in row["ms"]:
            row[f"vs_{ref}"] = row["ms"][ref] / row["ms"]["fuser"]
    del xs, fused
    torch._dynamo.reset()
    torch.cuda.empty_cache()
    return row


# The remarks that say which kernel an op got and why (the configuration
# step's), and the operand copies it made.
CHOICE_REMARKS = ("matmul kernel:", "copied K-major", "copied with K padded",
                  "reduction kernel:", "scan kernel:")


def kernel_choices(fused):
    """The first variant's kernel-choice remarks of a fuser.torch package
    ([] for a partitioned model)."""
    package = getattr(fused, "fuser_package", None)
    if package is None or not package.variants:
        return []
    return [r.message for r in package.variants[0].remarks
            if any(key in r.message for key in CHOICE_REMARKS)]


def fused_share(kernels_us, kernels):
    """The share of a call's kernel time spent in fuser's kernels (named in
    `kernels`: {variant: [names]}, or {graph: {variant: [names]}}); the rest
    is PyTorch's (a partitioned block's convolutions)."""
    names = set()
    for value in kernels.values():
        for ks in (value.values() if isinstance(value, dict) else [value]):
            names.update(ks)
    total = sum(kernels_us.values())
    return sum(us for k, us in kernels_us.items() if k in names) / total if total else 0.0


def _short(kernel, n=48):
    return kernel if len(kernel) <= n else kernel[:n] + "..."


def markdown(rows, device, title="Memory-bound models"):
    lines = [f"# {title} ({device})", "",
             "fuser, eager and torch.compile timed interleaved (CUDA events, L2 flushed, mean). "
             "Floor: inputs read once, outputs written once; TB/s = floor / fuser's time; "
             "copy: a device copy of the floor's bytes in the same run; read (reductions: "
             "outputs at most 1/8 of the floor): PyTorch's sum over as many bytes, the "
             "device's read bandwidth in the same run.", "",
             "Fused: the share of the call's kernel time in fuser's kernels (the rest is "
             "PyTorch's: a partitioned model's convolutions).", "",
             "| model | kind | fuser ms | eager ms | compile ms | vs eager | vs compile | "
             "TB/s | of copy | of read | fused | correct (err vs f64: fuser / eager) | kernels (us) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['name']} | {r['kind']} | - | - | - | - | - | - | - | - | - | "
                         f"{r['error'][:120]} | - |")
            continue
        ms = r["ms"]
        # PyTorch's kernels (a partitioned block's convolutions) by the
        # head of their long template names.
        ks = ", ".join(f"{_short(k)} {v:.0f}" for k, v in r["fuser_kernels_us"].items())
        of_read = f"{r['tbps'] / r['read_tbps']:.0%}" if "read_tbps" in r else "-"
        lines.append(
            f"| {r['name']} | {r['kind']} | {ms['fuser']:.3f} | {ms['eager']:.3f} | "
            f"{ms.get('compile', math.nan):.3f} | {r['vs_eager']:.2f}x | "
            f"{r.get('vs_compile', math.nan):.2f}x | {r['tbps']:.2f} | "
            f"{r['tbps'] / r['copy_tbps']:.0%} | {of_read} | "
            f"{r.get('fused_share', math.nan):.0%} | "
            f"{r['correct']} ({r['max_error']:.1e} / "
            f"{r['eager_max_error']:.1e}) | {ks} |")
    chosen = [r for r in rows if r.get("choices")]
    if chosen:
        lines += ["", "Kernel choices (the configuration step's remarks, first variant):", ""]
        for r in chosen:
            lines.append(f"- **{r['name']}**: " + "; ".join(
                dict.fromkeys(r["choices"])))
    return "\n".join(lines) + "\n"


def main(models=None, out=OUT, title="Memory-bound models", description=None, iters=10):
    """The command line over `models` (MODELS by default): --build, --list,
    or the run on the GPU and its table (bench/real_models.py passes its
    own models, packages directory and title)."""
    models = models or MODELS
    ap = argparse.ArgumentParser(description=description or __doc__.splitlines()[0])
    ap.add_argument("--build", action="store_true", help="compile the packages (needs torch-mlir)")
    ap.add_argument("--only", help="comma-separated model names")
    ap.add_argument("--list", action="store_true", help="name the models")
    ap.add_argument("--iters", type=int, default=iters)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-compile", action="store_true", help="no torch.compile column")
    ap.add_argument("--out", type=Path, help="write <out>.md and <out>.json")
    a = ap.parse_args()
    names = a.only.split(",") if a.only else list(models)
    unknown = [n for n in names if n not in models]
    if unknown:
        ap.error(f"unknown models {unknown}; --list names them")
    if a.list:
        print("\n".join(f"{n}: {models[n][2]} {models[n][1]}" for n in models))
        return 0
    if a.build:
        build(names, models, out)
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    rows = []
    for name in names:
        try:
            row = run_one(name, a.iters, a.rounds, not a.skip_compile, models, out)
        except Exception as e:  # one model's failure does not end the table
            traceback.print_exc()
            row = {"name": name, "kind": models[name][2], "error": f"{type(e).__name__}: {e}"}
            torch.cuda.empty_cache()
        rows.append(row)
        print(json.dumps(row), flush=True)
    device = torch.cuda.get_device_name()
    text = markdown(rows, device, title)
    print(text)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.with_suffix(".md").write_text(text)
        a.out.with_suffix(".json").write_text(json.dumps({"device": device, "rows": rows},
                                                         indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
