"""Where fuser's training gradients differ from eager PyTorch, and which of
the two is closer to float64 (issue 14): W2 and W3 at their real size
(Linear 8192 -> 8192, batch 1024), the training packages that
scripts/build-torch-artifacts.py writes to .artifacts/torch/training/.

For L = sum(y * r) (x = torch.rand, r = torch.randn, as
test/gpu/test_torch_training.py makes them) and each of the output, the input
gradient and every parameter gradient (W2: weight, bias; W3: weight, bias,
gamma, beta), it prints:

- max |float64|, the reference's magnitude;
- max |fuser - f64|, max |eager fp32 - f64|, max |fuser - eager|;
- torch.allclose(fuser, eager, 1e-4, 1e-4) and allclose(fuser, f64),
  allclose(eager, f64), with how many elements miss and the worst ratio
  |a - b| / (atol + rtol |b|) (1 is the edge);
- where the biggest |fuser - eager| and |fuser - f64| are: the index and the
  fuser, eager and f64 values there;
- for 2-D gradients, how the elements that miss allclose(fuser, f64) fall
  over 128 x 128 tiles (a kernel bug clusters in tiles or edges; rounding
  does not);
- the output's sign flips: elements where fuser's output and eager's (or
  float64's) are on opposite sides of 0. leaky_relu's backward mask is
  `out > 0` of each one's own output, so a flip at (b, n) (an output within
  rounding of 0) changes g[b, n] by (1 - slope)·2·r[b, n] and so the whole
  row b of the input gradient (by about that times W[n, :]), row n of the
  weight gradient and bias[n]: for each gradient that misses, how many of
  its missing rows (or elements) lie on a flip.

The float64 reference runs on the GPU (a float64 copy of the model, 0.5 GB
for 8192 x 8192); tensors are freed between models. Needs torch, fuser's
runtime and the packages only. TF32 is off (eager fp32 is the users'
reference).

Usage (on the GPU host, as test/gpu/test_torch_training.py runs):
  PYTHONPATH=$PWD/build-gpu/python_packages FUSER_ARTIFACTS=$PWD/.artifacts \\
      python3 bench/training_grad_accuracy.py [--names w2 w3] [--trials 1] \\
      [--out FILE]
"""

import argparse
import copy
import json
import os
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
ATOL = RTOL = 1e-4
TILE = 128


def artifacts() -> Path:
    return Path(os.environ.get("FUSER_ARTIFACTS", ROOT / ".artifacts"))


def problem(seed):
    """examples/torch/<seed>.py (or test/gpu/Inputs/torch_models.<Class>)."""
    sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))
    import torch_models
    return torch_models.problem(seed)


def build(name, entry, device, seed=0):
    """(eager model, its loaded training package sharing its parameters), as
    test/gpu/test_torch_training.py builds them."""
    import fuser.torch as ft

    torch.manual_seed(seed)
    model = problem(entry["seed"]).Model(*entry["init"]).to(device)
    path = artifacts() / "torch" / "training" / f"{name}.fuser"
    compiled = ft.load(path, module=model)
    return model, compiled


def gradients(model, x, r):
    """[y, dL/dx, dL/dparams...] for L = sum(y * r), detached."""
    x = x.detach().clone().requires_grad_(True)
    params = list(model.parameters())
    y = model(x)
    grads = torch.autograd.grad(y, [x] + params, grad_outputs=r)
    return [y.detach()] + [g.detach() for g in grads]


def labels(model):
    return ["output", "input gradient"] + [
        f"{n}.grad" for n, _ in model.named_parameters()]


def _where(t: torch.Tensor, flat_index: int):
    idx = []
    for size in reversed(t.shape):
        idx.append(flat_index % size)
        flat_index //= size
    return tuple(reversed(idx))


def compare(new: torch.Tensor, ref: torch.Tensor):
    """Max |new - ref| (float64), allclose(new, ref) at 1e-4, the elements
    that miss, the worst |new - ref| / (atol + rtol |ref|), and the flat
    index of the biggest difference."""
    d = (new.double() - ref.double()).abs()
    ratio = d / (ATOL + RTOL * ref.double().abs())
    worst = int(d.reshape(-1).argmax()) if d.numel() else 0
    out = {
        "max_abs": float(d.max()) if d.numel() else 0.0,
        "allclose": bool(torch.allclose(new.double(), ref.double(),
                                        atol=ATOL, rtol=RTOL)),
        "missing": int((ratio > 1).sum()),
        "worst_ratio": float(ratio.max()) if d.numel() else 0.0,
        "argmax": worst,
    }
    del d, ratio
    return out


def tiles(new: torch.Tensor, ref: torch.Tensor, top: int = 5):
    """For a 2-D tensor: how the elements missing allclose(new, ref) fall
    over TILE x TILE tiles, and on the last row / column tiles."""
    if new.dim() != 2:
        return None
    bad = ((new.double() - ref.double()).abs() >
           ATOL + RTOL * ref.double().abs())
    rows, cols = new.shape
    tr, tc = -(-rows // TILE), -(-cols // TILE)
    padded = torch.zeros(tr * TILE, tc * TILE, dtype=torch.int32,
                         device=bad.device)
    padded[:rows, :cols] = bad.to(torch.int32)
    per_tile = padded.reshape(tr, TILE, tc, TILE).sum(dim=(1, 3))
    per_row = bad.sum(dim=1)
    per_col = bad.sum(dim=0)
    flat = per_tile.reshape(-1)
    k = min(top, flat.numel())
    counts, where = flat.to(torch.int64).topk(k)
    result = {
        "tiles": f"{tr}x{tc}",
        "tiles_with_misses": int((per_tile > 0).sum()),
        "top_tiles": [(divmod(int(w), tc), int(c))
                      for c, w in zip(counts, where) if int(c) > 0],
        "rows_with_misses": int((per_row > 0).sum()),
        "cols_with_misses": int((per_col > 0).sum()),
        "in_row_0": int(per_row[0]) if rows else 0,
        "in_last_row": int(per_row[-1]) if rows else 0,
        "in_col_0": int(per_col[0]) if cols else 0,
        "in_last_col": int(per_col[-1]) if cols else 0,
    }
    del bad, padded
    return result


def analyse_value(label, new, e32, e64):
    """The figures for one value (fuser's, eager fp32's, float64's)."""
    assert new.shape == e32.shape == e64.shape, (
        f"{label}: shapes {tuple(new.shape)}, {tuple(e32.shape)}, "
        f"{tuple(e64.shape)}")
    fe = compare(new, e32)
    f64 = compare(new, e64)
    e_64 = compare(e32, e64)
    rows = {"value": label, "shape": list(new.shape),
            "max_abs_f64": float(e64.abs().max()) if e64.numel() else 0.0,
            "fuser_vs_f64": f64, "eager_vs_f64": e_64, "fuser_vs_eager": fe}
    for key, cmp in (("at_max_fuser_vs_eager", fe),
                     ("at_max_fuser_vs_f64", f64)):
        i = cmp["argmax"]
        rows[key] = {"index": list(_where(new, i)),
                     "fuser": float(new.reshape(-1)[i]),
                     "eager": float(e32.reshape(-1)[i]),
                     "f64": float(e64.reshape(-1)[i])}
    rows["tiles_fuser_vs_f64"] = tiles(new, e64)
    rows["tiles_fuser_vs_eager"] = tiles(new, e32)
    return rows


def describe(r) -> str:
    f, e, fe = r["fuser_vs_f64"], r["eager_vs_f64"], r["fuser_vs_eager"]

    def yes(b):
        return "yes" if b else "NO"

    lines = [
        f"  {r['value']} {r['shape']}: max|f64| {r['max_abs_f64']:.4e}",
        f"    max|fuser-f64| {f['max_abs']:.3e}   max|eager-f64| "
        f"{e['max_abs']:.3e}   max|fuser-eager| {fe['max_abs']:.3e}",
        f"    allclose(fuser, eager) {yes(fe['allclose'])} "
        f"({fe['missing']} miss, worst ratio {fe['worst_ratio']:.2f}); "
        f"allclose(fuser, f64) {yes(f['allclose'])} ({f['missing']} miss, "
        f"{f['worst_ratio']:.2f}); allclose(eager, f64) "
        f"{yes(e['allclose'])} ({e['missing']} miss, "
        f"{e['worst_ratio']:.2f})",
    ]
    for key, what in (("at_max_fuser_vs_eager", "max |fuser-eager|"),
                      ("at_max_fuser_vs_f64", "max |fuser-f64|")):
        a = r[key]
        lines.append(f"    {what} at {tuple(a['index'])}: fuser "
                     f"{a['fuser']:.8e}  eager {a['eager']:.8e}  f64 "
                     f"{a['f64']:.8e}")
    f = r.get("output_sign_flips")
    if f is not None:
        lines.append(
            f"    output sign flips (out > 0 differs): fuser vs eager "
            f"{f['fuser_vs_eager']} (in {len(f['rows'])} rows, "
            f"{len(f['cols'])} cols), fuser vs f64 {f['fuser_vs_f64']}, "
            f"eager vs f64 {f['eager_vs_f64']}")
        for e in f["examples"]:
            lines.append(f"      at {tuple(e['index'])}: fuser "
                         f"{e['fuser']:.3e}  eager {e['eager']:.3e}  f64 "
                         f"{e['f64']:.3e}")
    m = r.get("misses_on_output_sign_flips")
    if m is not None:
        lines.append(f"    of the {m['missing']} {m['kind']} missing "
                     f"allclose(fuser, eager), {m['on_flips']} lie on an "
                     "output sign flip")
    for key, what in (("tiles_fuser_vs_f64", "misses vs f64"),
                      ("tiles_fuser_vs_eager", "misses vs eager")):
        t = r[key]
        if t and (t["tiles_with_misses"] or t["rows_with_misses"]):
            lines.append(
                f"    {what} over {TILE}x{TILE} tiles ({t['tiles']}): "
                f"{t['tiles_with_misses']} tiles, {t['rows_with_misses']} "
                f"rows, {t['cols_with_misses']} cols; most in tiles "
                f"{t['top_tiles']}; row 0 {t['in_row_0']}, last row "
                f"{t['in_last_row']}, col 0 {t['in_col_0']}, last col "
                f"{t['in_last_col']}")
    return "\n".join(lines)


def sign_flips(new, e32, e64, show=5):
    """Where the output's sign (> 0, leaky_relu's mask) differs between
    fuser and eager, fuser and f64, eager and f64; the rows (batch) and
    columns (features) of fuser-vs-eager flips."""
    if new.dim() != 2:
        return None
    pos = [t > 0 for t in (new, e32, e64)]
    fe = pos[0] != pos[1]
    out = {"fuser_vs_eager": int(fe.sum()),
           "fuser_vs_f64": int((pos[0] != pos[2]).sum()),
           "eager_vs_f64": int((pos[1] != pos[2]).sum())}
    where = fe.nonzero()
    out["rows"] = sorted({int(i) for i in where[:, 0]})
    out["cols"] = sorted({int(i) for i in where[:, 1]})
    out["examples"] = [
        {"index": [int(b), int(n)], "fuser": float(new[b, n]),
         "eager": float(e32[b, n]), "f64": float(e64[b, n])}
        for b, n in where[:show].tolist()]
    return out


def misses_on_flips(r, flips, batch):
    """How many of a gradient's rows (2-D) or elements (1-D) that miss
    allclose(fuser, eager) lie on an output sign flip: rows b of an
    input-shaped gradient ([batch, K]), rows n of a weight gradient, n of a
    per-feature one."""
    t = r.get("_miss_fuser_vs_eager")
    if t is None or flips is None or not flips["fuser_vs_eager"]:
        return None
    if t.dim() == 2:
        missing = t.any(dim=1).nonzero().reshape(-1).tolist()
        on = set(flips["rows"]) if t.shape[0] == batch else \
            set(flips["cols"])
    else:
        missing = t.reshape(-1).nonzero().reshape(-1).tolist()
        on = set(flips["cols"])
    if not missing:
        return None
    return {"missing": len(missing),
            "on_flips": sum(1 for i in missing if i in on),
            "kind": "rows" if t.dim() == 2 else "elements"}


def analyse(name, model, compiled, x, r):
    """Every value of one trial: fuser's (the loaded package), eager fp32
    (model) and float64 (a copy of model in float64, on model's device).
    Returns the per-value figures."""
    got = gradients(compiled, x, r)
    eager = gradients(model, x, r)
    names = labels(model)
    ref64 = copy.deepcopy(model).double()
    exact = gradients(ref64, x.double(), r.double())
    del ref64
    results = []
    flips = sign_flips(got[0], eager[0], exact[0])
    for label, new, e32, e64 in zip(names, got, eager, exact):
        res = analyse_value(label, new, e32, e64)
        res["_miss_fuser_vs_eager"] = (
            (new.double() - e32.double()).abs() >
            ATOL + RTOL * e32.double().abs())
        res["misses_on_output_sign_flips"] = misses_on_flips(
            res, flips, x.shape[0])
        del res["_miss_fuser_vs_eager"]
        results.append(res)
    if results:
        results[0]["output_sign_flips"] = flips
    del got, eager, exact
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--names", nargs="+", default=["w2", "w3"],
                    help="training packages (index.json names): w2 w3 by "
                         "default; w2_small etc. for a quick check")
    ap.add_argument("--trials", type=int, default=1,
                    help="fresh inputs per package")
    ap.add_argument("--batch", type=int, default=None,
                    help="another batch (dynamic packages only)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--out", type=Path, default=None,
                    help="also write the figures as JSON")
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        sys.exit("no CUDA device: this runs fuser's kernels")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    index_path = artifacts() / "torch" / "index.json"
    if not index_path.exists():
        sys.exit(f"{index_path} missing: run scripts/build-torch-artifacts.py")
    training = json.loads(index_path.read_text()).get("training", {})
    print(f"[grad accuracy] torch {torch.__version__}, "
          f"{torch.cuda.get_device_name()}, TF32 off; atol = rtol = {ATOL}")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    report = {}
    for name in args.names:
        if name not in training:
            sys.exit(f"no training package {name} (have "
                     f"{', '.join(sorted(training))})")
        entry = training[name]
        model, compiled = build(name, entry, "cuda")
        shape = list(entry["shape"])
        if args.batch is not None:
            if not entry["dynamic"]:
                sys.exit(f"{name} is static (batch {shape[0]})")
            shape[0] = args.batch
        kernels = {v: len(k) for v, k in compiled.fuser_kernels.items()}
        print(f"\n[grad accuracy] {name}: {type(model).__name__}"
              f"{tuple(entry['init'])}, input {shape}, kernels {kernels}")
        report[name] = []
        for trial in range(args.trials):
            start = time.perf_counter()
            x = torch.rand(shape, device="cuda", generator=gen)
            with torch.no_grad():
                out_shape = model(x).shape
            r = torch.randn(out_shape, device="cuda", generator=gen)
            results = analyse(name, model, compiled, x, r)
            del x, r
            torch.cuda.synchronize()
            print(f" trial {trial} ({time.perf_counter() - start:.1f} s, "
                  f"peak {torch.cuda.max_memory_allocated() / 2**30:.1f} "
                  "GiB)")
            for res in results:
                print(describe(res), flush=True)
            report[name].append(results)
        del model, compiled
        torch.cuda.empty_cache()
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        print(f"\n[grad accuracy] figures in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
