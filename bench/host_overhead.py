"""Host time per call where the host decides the time: small models and the
seeds' training steps, fuser's compiled modules against eager PyTorch,
torch.compile (default) and torch.compile(mode="reduce-overhead"), all in
this one process.

Per model and implementation:
  host_us      median host time of one call: the call alone timed with
               perf_counter, the GPU idle before it (a synchronize outside
               the timed region), so neither a full launch queue nor the
               GPU's own time counts;
  loop_us      calls back to back, wall time per call (the GPU's time
               counts where it is longer than the host's);
               both in rounds that alternate the implementations, the
               median of the rounds' figures;
  mean_ms      the users' timing (CUDA events, L2 flushed, mean), in
               rounds that alternate the implementations (--rounds).
fuser runs twice: with CUDA graphs in their default mode (auto) and off.
fuser's outputs are checked against a float64 run of the model (atol =
rtol = 1e-4) first.

The training rows time a step's forward and its backward (`loss.backward()`)
separately, on W2 and W3 at their real sizes (the training packages), with
a data batch that does not require grad and with one that does.

The packages come from scripts/build-torch-artifacts.py (host/, training/):
    PYTHONPATH=build-gpu/python_packages FUSER_ARTIFACTS=.artifacts \\
        python3 bench/host_overhead.py [--json out.json] [--calls 2000]
"""

import argparse
import copy
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F

import fuser

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))
import bench  # noqa: E402
import torch_models  # noqa: E402


def host_us(fn, calls):
    """Median host time of one call (us), the GPU idle before each."""
    for _ in range(20):
        fn()
    times = []
    for _ in range(calls):
        torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    torch.cuda.synchronize()
    return statistics.median(times) * 1e6


def loop_us(fn, calls):
    """Wall time per call (us) of `calls` calls back to back."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


# fuser's CUDA graph mode per implementation label (fuser.set_cuda_graphs);
# the default is auto.
GRAPH_MODES = {"fuser": "auto", "fuser (graphs off)": "off"}
IMPLS = ("eager", "torch.compile", "reduce-overhead", *GRAPH_MODES)
# --skip-compile: eager and fuser only (no torch.compile compiles).
SKIP_COMPILE = False


def implementations(model, package):
    """name -> module: eager, the two torch.compile modes, fuser with CUDA
    graphs in their default mode and off."""
    import fuser.torch as ft

    nets = {"eager": model}
    if not SKIP_COMPILE:
        nets["torch.compile"] = torch.compile(copy.deepcopy(model))
        nets["reduce-overhead"] = torch.compile(copy.deepcopy(model),
                                                mode="reduce-overhead")
    for label in GRAPH_MODES:
        nets[label] = ft.load(package, module=copy.deepcopy(model))
    return nets


def in_graph_mode(label, fn):
    """`fn` with fuser's graph mode set for `label` around each call (for
    the interleaved users' timing, where implementations alternate)."""
    if label not in GRAPH_MODES:
        return fn

    def call():
        fuser.set_cuda_graphs(GRAPH_MODES[label])
        try:
            return fn()
        finally:
            fuser.set_cuda_graphs("auto")
    return call


def set_graph_mode(label):
    fuser.set_cuda_graphs(GRAPH_MODES.get(label, "auto"))


def interleaved_host_times(calls, n, rounds):
    """host_us and loop_us of each call over `n` calls, in `rounds` that
    alternate the implementations (the order rotated by one per round),
    each the median of the rounds': the lent machine's host speed drifts
    within a run."""
    names = list(calls)
    per_round = {name: {"host_us": [], "loop_us": []} for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            set_graph_mode(name)
            per_round[name]["host_us"].append(
                host_us(calls[name], max(n // (4 * rounds), 20)))
            per_round[name]["loop_us"].append(
                loop_us(calls[name], max(n // rounds, 20)))
    set_graph_mode("auto")
    return {name: {k: statistics.median(v) for k, v in t.items()}
            for name, t in per_round.items()}


def small_models(args):
    index = json.loads((bench.ARTIFACTS / "torch" / "index.json").read_text())
    rows = []
    for name, entry in index.get("host", {}).items():
        if args.models and name not in args.models.split(","):
            continue
        model = torch_models.build_host(name, device="cuda")
        x = torch.randn(entry["shape"], device="cuda")
        nets = implementations(
            model, bench.ARTIFACTS / "torch" / "host" / f"{name}.fuser")
        with torch.no_grad():  # A float64 reference.
            want = copy.deepcopy(model).double()(x.double())
            got = nets["fuser"](x).double()
        error = (got - want).abs().max().item()
        ok = torch.allclose(got, want, atol=1e-4, rtol=1e-4)
        row = {"model": name, "eager_ops": entry["eager_ops"],
               "kernels": sum(len(k) for k in entry["kernels"].values()),
               "max_abs_error": error, "correct": ok}
        calls = {label: (lambda net=net: net(x)) for label, net in nets.items()}
        with torch.no_grad():
            # Users' timing in alternating rounds, against drift between
            # implementations timed one after the other.
            users = bench.time_interleaved(
                {label: in_graph_mode(label, call) for label, call in calls.items()},
                args.iters // args.rounds, rounds=args.rounds)
            host = interleaved_host_times(calls, args.calls, args.rounds)
            for label in calls:
                row[label] = {**host[label], "mean_ms": users[label]["mean_ms"],
                              "median_ms": users[label]["median_ms"]}
        launcher = getattr(nets["fuser"]._fuser_launch, "_launcher", None)
        row["graphs"] = getattr(launcher, "graphs", None)
        rows.append(row)
        print(f"[host] {name}: " + ", ".join(
            f"{k} {row[k]['host_us']:.1f} us" for k in nets), flush=True)
        del nets, model
    return rows


def training_steps(args):
    import fuser.torch as ft

    index = json.loads((bench.ARTIFACTS / "torch" / "index.json").read_text())
    training = index.get("training", {})
    rows = []
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        for name in ("w2", "w3"):
            if name not in training:
                continue
            entry = training[name]
            torch.manual_seed(0)
            model = torch_models.problem(entry["seed"]).Model(
                *entry["init"]).cuda()
            package = bench.ARTIFACTS / "torch" / "training" / f"{name}.fuser"
            nets = {"eager": copy.deepcopy(model),
                    "torch.compile": torch.compile(copy.deepcopy(model))}
            for label in GRAPH_MODES:
                nets[label] = ft.load(package, module=copy.deepcopy(model))
            for input_grad in (False, True):
                x = torch.rand(entry["shape"], device="cuda").requires_grad_(
                    input_grad)
                with torch.no_grad():
                    target = torch.randn_like(model(x))
                row = {"model": name, "input_grad": input_grad}
                for label, net in nets.items():
                    set_graph_mode(label)
                    fwd, bwd = [], []
                    for i in range(20 + args.calls // 20):
                        for p in net.parameters():
                            p.grad = None
                        x.grad = None
                        torch.cuda.synchronize()
                        t0 = time.perf_counter()
                        out = net(x)
                        t1 = time.perf_counter()
                        loss = F.mse_loss(out, target)
                        torch.cuda.synchronize()
                        t2 = time.perf_counter()
                        loss.backward()
                        t3 = time.perf_counter()
                        if i >= 20:
                            fwd.append(t1 - t0)
                            bwd.append(t3 - t2)
                    torch.cuda.synchronize()
                    row[label] = {"forward_host_us": statistics.median(fwd) * 1e6,
                                  "backward_host_us": statistics.median(bwd) * 1e6}
                set_graph_mode("auto")
                fused = nets["fuser"]
                ran = fused._fuser_training_variant(fused._fuser_tensors((x,), {}))
                row["kernels"] = {"forward": len(ran.kernels),
                                  "backward": len(fused._fuser_backward(ran).kernels)}
                rows.append(row)
                print(f"[host] {name} training (x grad {input_grad}): " + ", ".join(
                    f"{k} fwd {row[k]['forward_host_us']:.0f} us bwd "
                    f"{row[k]['backward_host_us']:.0f} us" for k in nets), flush=True)
            del nets, model
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    return rows


def report(small, steps):
    lines = ["| model | eager ops | fuser kernels | max abs error | impl | host us | "
             "loop us | mean us (users') | median us | host vs eager | "
             "users' speedup vs eager | vs torch.compile |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in small:
        eager = r["eager"]
        compiled = r.get("torch.compile", {"mean_ms": float("nan")})
        kernels = f"{r['kernels']}{' (graph)' if r.get('graphs') else ''}"
        for impl in IMPLS:
            if impl not in r:
                continue
            t = r[impl]
            lines.append(
                f"| {r['model']} | {r['eager_ops']} | {kernels} | "
                f"{r['max_abs_error']:.1e}{'' if r['correct'] else ' FAIL'} | {impl} | "
                f"{t['host_us']:.1f} | {t['loop_us']:.1f} | {t['mean_ms'] * 1e3:.1f} | "
                f"{t.get('median_ms', float('nan')) * 1e3:.1f} | "
                f"{t['host_us'] / eager['host_us']:.2f} | "
                f"{eager['mean_ms'] / t['mean_ms']:.2f}x | "
                f"{compiled['mean_ms'] / t['mean_ms']:.2f}x |")
    lines += ["", "| training step | x requires grad | fuser kernels (fwd, bwd) | impl | "
              "forward host us | backward host us |", "|---|---|---|---|---|---|"]
    for r in steps:
        for impl in ("eager", "torch.compile", *GRAPH_MODES):
            t = r[impl]
            lines.append(
                f"| {r['model']} | {r['input_grad']} | {r['kernels']['forward']}, "
                f"{r['kernels']['backward']} | {impl} | {t['forward_host_us']:.0f} | "
                f"{t['backward_host_us']:.0f} |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--rounds", type=int, default=5,
                   help="alternating rounds of the users' timing")
    p.add_argument("--json", type=Path)
    p.add_argument("--skip-training", action="store_true")
    p.add_argument("--skip-small", action="store_true")
    p.add_argument("--skip-compile", action="store_true",
                   help="time eager and fuser only")
    p.add_argument("--models", default="",
                   help="comma-separated small models (default: all)")
    args = p.parse_args()
    global SKIP_COMPILE
    SKIP_COMPILE = args.skip_compile
    warnings.filterwarnings("ignore", message="fuser.torch: the kernels record")
    small = [] if args.skip_small else small_models(args)
    steps = [] if args.skip_training else training_steps(args)
    text = report(small, steps)
    print(text)
    if args.json:
        args.json.write_text(json.dumps({"small": small, "training": steps,
                                         "device": torch.cuda.get_device_name(),
                                         "torch": torch.__version__}, indent=1))
    return 0 if all(r["correct"] for r in small) else 1


if __name__ == "__main__":
    sys.exit(main())
