"""A/B timing of kernels that compute the same thing: the hand-written seed
examples and the torch-mlir exports of the same models, each compiled with
and without a codegen change (.artifacts/ab/<stem>_before.*, the PTX and
manifest of the previous build, copied there by hand). Interleaved rounds
(bench.time_interleaved), KernelBench-style L2 flush; the results agree to
1e-4 before timing. Needs only torch and fuser's runtime.

    FUSER_ARTIFACTS=.artifacts python3 bench/experiments/ab_kernels.py [--iters N] [--rounds R]
"""

import argparse
import json
import math
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import ARTIFACTS, load, time_interleaved  # noqa: E402


def w1_inputs(g):
    return (torch.rand(4096, 393216, device="cuda", generator=g) * 2 - 1,)


def linear_inputs(g, extra_norm):
    bound = 1 / math.sqrt(8192)
    x = torch.rand(1024, 8192, device="cuda", generator=g) * 2 - 1
    w = (torch.rand(8192, 8192, device="cuda", generator=g) * 2 - 1) * bound
    b = (torch.rand(8192, device="cuda", generator=g) * 2 - 1) * bound
    if not extra_norm:
        return (x, w, b)
    gamma = torch.rand(8192, device="cuda", generator=g) + 0.5
    beta = torch.rand(8192, device="cuda", generator=g) - 0.5
    return (x, w, b, gamma, beta)


def stems(hand, torch_mlir):
    """The current build of the hand-written example and of the torch-mlir
    export (an artifact stem), and their previous builds
    (ab/<name>_before), where present."""
    out = {"hand-written": hand, "hand-written, before": f"ab/{hand}_before"}
    if torch_mlir:
        out.update({"torch-mlir": torch_mlir,
                    "torch-mlir, before": f"ab/{Path(torch_mlir).name}_before"})
    return out


CASES = {
    # name: (inputs, {label: stem})
    # (the corpus's leaky_relu export is 4 x 1000: no torch-mlir W1 here)
    "w1": (w1_inputs, stems("w1_leaky_relu_static", None)),
    "w2": (lambda g: linear_inputs(g, False),
           stems("w2_linear_scale_leaky", "corpus/torch_w2")),
    "w3": (lambda g: linear_inputs(g, True),
           stems("w3_linear_groupnorm", "corpus/torch_w3_linear_group_norm")),
}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iters", type=int, default=20, help="timed calls per round")
    p.add_argument("--rounds", type=int, default=7, help="interleaved rounds")
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    results = {"device": torch.cuda.get_device_name()}
    g = torch.Generator(device="cuda").manual_seed(0)
    for name, (make, stems) in CASES.items():
        present = {k: s for k, s in stems.items()
                   if (ARTIFACTS / f"{s}.ptx").exists()}
        if len(present) < 2:
            print(f"[ab] {name}: skipped, artifacts missing: "
                  f"{sorted(set(stems.values()) - set(present.values()))}")
            continue
        inputs = make(g)
        mods = {k: load(s) for k, s in present.items()}
        outs = {k: m.main(*inputs) if hasattr(m, "main") else m.forward(*inputs)
                for k, m in mods.items()}
        first = next(iter(outs.values()))
        for k, o in outs.items():
            torch.testing.assert_close(o, first, rtol=1e-4, atol=1e-4, msg=f"{name} {k}")
        del outs, first
        fns = {k: (lambda m=m: (m.main if hasattr(m, "main") else m.forward)(*inputs))
               for k, m in mods.items()}
        res = time_interleaved(fns, args.iters, args.rounds)
        base = res["hand-written"]["median_ms"] if "hand-written" in res else None
        line = ", ".join(
            f"{k} {v['median_ms']:.4f} ms" + (f" ({base / v['median_ms']:.3f}x)" if base else "")
            for k, v in res.items())
        print(f"[ab] {name}: {line}; round medians "
              + json.dumps({k: [round(t, 4) for t in v['round_medians_ms']] for k, v in res.items()}))
        results[name] = res
        del inputs, mods, fns
        torch.cuda.empty_cache()
    if args.out:
        args.out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
