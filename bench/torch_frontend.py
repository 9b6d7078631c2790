"""Times the seed models compiled through fuser.torch (the ModelNew files that
scripts/build-torch-artifacts.py writes into .artifacts/torch/) against the
hand-written .mlir examples, PyTorch eager and torch.compile, in one run
(issue 13, item 5). fp32 with TF32 off, as users check; inputs and weights as
the problem files make them. Needs only torch and fuser's runtime.

    FUSER_ARTIFACTS=.artifacts python3 bench/torch_frontend.py [--iters N]
"""

import argparse
import importlib.util
import json
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from bench import ARTIFACTS, load, time_interleaved  # noqa: E402


def model_new(name):
    path = ARTIFACTS / "torch" / f"{name}_new.py"
    spec = importlib.util.spec_from_file_location(f"{name}_new", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def bench(name, iters, hand_written, rounds):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    m = model_new(name)
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
        fns = {"eager": lambda: ref(*x), "torch.compile": lambda: compiled(*x),
               "fuser.torch ModelNew": lambda: new(*x)}
        if hand_written:
            stem, args = hand_written(ref, x)
            hw = load(stem)
            fns["fuser, hand-written .mlir"] = lambda: hw.forward(*args)
        # Interleaved rounds: the ModelNew vs hand-written ratio is a few
        # percent at most, below the drift between back-to-back runs.
        res = time_interleaved(fns, iters, rounds)
    line = {k: round(v["median_ms"], 4) for k, v in res.items()}
    new_key = "fuser.torch ModelNew"
    ratios = {ref_key: paired_ratio(res, ref_key, new_key)
              for ref_key in ("eager", "torch.compile", "fuser, hand-written .mlir")
              if ref_key in res}
    print(f"[torch frontend] {name}: max abs error vs eager {err:.2e}; median ms {line}; "
          f"ModelNew vs eager {ratios['eager']:.3f}x, vs torch.compile "
          f"{ratios['torch.compile']:.3f}x"
          + (f", vs hand-written {ratios['fuser, hand-written .mlir']:.3f}x"
             if hand_written else "")
          + " (median over rounds of the round's ratio)")
    return {"max_abs_error": err, "ModelNew speedup (paired)": ratios, **res}


def paired_ratio(res, ref_key, new_key):
    """The median over rounds of ref / new within each round: both timed
    back to back in the same clock state (the H100 drifts between states
    a few percent apart during a run)."""
    pairs = zip(res[ref_key]["round_medians_ms"], res[new_key]["round_medians_ms"])
    return statistics.median(a / b for a, b in pairs)


def w1_args(ref, x):
    return "w1_leaky_relu_static", (x[0],)


def w2_args(ref, x):
    return "w2_linear_scale_leaky", (x[0], ref.gemm.weight, ref.gemm.bias)


def w3_args(ref, x):
    lin, gn = [mod for mod in ref.modules() if isinstance(mod, (torch.nn.Linear, torch.nn.GroupNorm))]
    return "w3_linear_groupnorm", (x[0], lin.weight, lin.bias, gn.weight, gn.bias)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iters", type=int, default=20, help="timed calls per round")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "w2": bench("w2", args.iters, w2_args, args.rounds),
               "w3": bench("w3", args.iters, w3_args, args.rounds),
               "w1": bench("w1", args.iters, w1_args, args.rounds)}
    if args.out:
        args.out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
