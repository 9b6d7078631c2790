#!/usr/bin/env python3
"""Compiles the fuser.torch GPU test inputs here (torch-mlir and fuser's
compiler) into .artifacts/torch/, which test/gpu/test_torch_frontend.py reads
on the GPU machine (torch and fuser's runtime only):

  <name>.fuser/             fuser.torch.save packages of the models in
                            test/gpu/Inputs/torch_models.py (PACKAGES)
  linear_leaky_weights.zip  a zip package with its weights (load without a
                            module)
  w1_new.py ... conv_stem_new.py
                            ModelNew files from examples/torch/*.py
                            (python -m fuser.torch.kernelbench)
  problems/<name>_new.py    ModelNew files from test/gpu/Inputs/problems/*.py
  training/<name>.fuser/    fuser.torch.compile(training=True) packages of
                            the seed models (TRAINING: small, odd, static
                            and dynamic batch, and the real sizes) for
                            test/gpu/test_torch_training.py
  dynamo/graphs/            torch.compile(backend="fuser") graph packages of
                            W2 and W3 (DYNAMO: small and real sizes; data
                            without grad and x requiring grad), for
                            test/gpu/test_torch_training.py and the bench
                            (FUSER_CACHE_DIR=.artifacts/torch/dynamo)
  host/<name>.fuser/        fuser.torch.compile packages of the small models
                            of test/gpu/Inputs/torch_models.py (HOST), for
                            bench/host_overhead.py
  elementwise/<name>.fuser/ fuser.torch.elementwise packages of the
                            functions in test/gpu/Inputs/elementwise_fns.py
                            (FORMS: the constants of each) for
                            test/gpu/test_torch_kernel_interface.py
  index.json                kernels and compile times of each (and how to
                            rebuild each training package's model)

--only-training builds the training packages alone, --only-elementwise the
elementwise ones alone, --only-host the host ones alone, --only-problems the problems/ ModelNew files
alone (into an existing .artifacts/torch/, keeping the rest).

Run under the project venv (make venv), e.g. from build-gpu-artifacts.sh:
    PYTHONPATH=build/python_packages .venv/bin/python scripts/build-torch-artifacts.py
"""

import argparse
import json
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))

import torch  # noqa: E402

import fuser.torch as ft  # noqa: E402
from fuser.torch import kernelbench  # noqa: E402
import model_blocks  # noqa: E402
import torch_models  # noqa: E402
import elementwise_fns  # noqa: E402


# Training packages: name -> (seed problem file in examples/torch, the
# constructor arguments (None: its get_init_inputs()), the input shape (None:
# its get_inputs()), dynamic). Small sizes are odd (batch 7, 40 -> 24
# features, GroupNorm groups of 4); the real ones are examples/torch/w{1,2,3}.py's.
TRAINING = {
    "w1_small": ("w1", [0.01], [7, 40], None),
    "w1_small_dynamic": ("w1", [0.01], [7, 40], "batch"),
    "w2_small": ("w2", [40, 24, 2.0, 0.1], [7, 40], None),
    "w2_small_dynamic": ("w2", [40, 24, 2.0, 0.1], [7, 40], "batch"),
    "w3_small": ("w3", [40, 24, 6], [7, 40], None),
    "w3_small_dynamic": ("w3", [40, 24, 6], [7, 40], "batch"),
    "w1": ("w1", None, None, None),
    "w2": ("w2", None, None, None),
    "w3": ("w3", None, None, None),
    # Two linears with a relu between (test/gpu/Inputs/torch_models.py):
    # a backward through two GEMMs and a relu mask.
    "mlp_small_dynamic": ("torch_models.MLP", [], [7, 128], "batch"),
    # BatchNorm in training mode: batch statistics, running ones written back.
    "batchnorm_small": ("torch_models.LinearBatchNorm", [], [64, 256], None),
    # Blocks of real models (test/gpu/Inputs/model_blocks.py: transformers'
    # and timm's layers, compiled whole), small and at BERT-base's width.
    # (Where transformers and timm are installed: the project venv has them.)
    **{name: (f"model_blocks.{name}", [], list(model_blocks.shape(name)), None)
       for name in model_blocks.MODELS
       if name not in model_blocks.partitioned() and model_blocks.available()},
}

# Training packages that also get a pair for steps under
# torch.autocast("cuda", dtype=torch.bfloat16) (test/gpu/test_torch_autocast.py,
# bench/suite.py's autocast rows).
AUTOCAST = ("w2_small", "w3_small", "w2_small_dynamic", "mlp_small_dynamic",
            "w2", "w3")
AUTOCAST_F16 = ("w2_small", "w3_small")


def require_fused(name, compiled):
    """Stops the build when a variant compiled unfused: fuser.torch retries
    a failed fused compile with fuse=false (correct, slower, and a note in
    the package only), which would otherwise ship silently."""
    for v in compiled.fuser_package.variants:
        if not v.fused:
            notes = "\n".join(r.message for r in v.remarks
                              if "fuse=false" in r.message)
            raise SystemExit(f"[torch artifacts] {name}: variant {v.name} "
                             f"compiled unfused:\n{notes}")


def training_model(name):
    """(model, constructor arguments, input shape) of TRAINING[name], its
    weights drawn after manual_seed(0); a problem file's own arguments and
    input shape where the entry leaves them None."""
    seed, init, shape, _ = TRAINING[name]
    problem = torch_models.problem(seed)
    if init is None:
        init = list(problem.get_init_inputs())
    if shape is None:
        with torch.device("meta"):
            shape = list(problem.get_inputs()[0].shape)
    torch.manual_seed(0)
    return problem.Model(*init), init, shape


def build_training(out, chip, index):
    """The training packages of TRAINING into out/training/. Each holds two
    pairs per shape variant, as a user's package does after training with
    both kinds of call: one compiled from data that does not require grad
    (parameter gradients only, the usual training step) and one whose input
    requires grad (dL/dx too); the module chooses per call."""
    (out / "training").mkdir(parents=True, exist_ok=True)
    index.setdefault("training", {})
    for name, (seed, _, _, dynamic) in TRAINING.items():
        model, init, shape = training_model(name)
        start = time.perf_counter()
        compiled = ft.compile(model, torch.empty(shape, device="meta"),
                              dynamic=dynamic, chip=chip, training=True,
                              fallback=False)
        first = compiled.fuser_package.variants[0].info["training"]["grads"]
        if first[-1] is None:  # No dL/dx in the first pair: add that one.
            ft.add_variant(compiled,
                           torch.empty(shape, device="meta").requires_grad_(),
                           dynamic=dynamic)
        if name in AUTOCAST:  # Steps under torch.autocast("cuda", bf16).
            ft.add_variant(compiled, torch.empty(shape, device="meta"),
                           dynamic=dynamic, autocast="bf16")
        if name in AUTOCAST_F16:  # And float16 (with GradScaler).
            ft.add_variant(compiled, torch.empty(shape, device="meta"),
                           dynamic=dynamic, autocast="f16")
        seconds = time.perf_counter() - start
        require_fused(f"training/{name}", compiled)
        ft.save(compiled, out / "training" / f"{name}.fuser")
        index["training"][name] = {
            "seed": seed, "init": init, "shape": shape, "dynamic": dynamic,
            "kernels": compiled.fuser_kernels, "seconds": round(seconds, 2)}
        counts = {v: len(k) for v, k in compiled.fuser_kernels.items()}
        print(f"[torch artifacts] training/{name}: kernels {counts} "
              f"({seconds:.2f} s)")


def build_host(out, chip, index):
    """The packages of torch_models.HOST into out/host/ (static shapes)."""
    shutil.rmtree(out / "host", ignore_errors=True)
    (out / "host").mkdir(parents=True)
    index["host"] = {}
    for name, (_, _, shape, eager_ops) in torch_models.HOST.items():
        model = torch_models.build_host(name)
        start = time.perf_counter()
        compiled = ft.compile(model, torch.empty(shape), chip=chip,
                              fallback=False)
        seconds = time.perf_counter() - start
        require_fused(f"host/{name}", compiled)
        ft.save(compiled, out / "host" / f"{name}.fuser")
        index["host"][name] = {"kernels": compiled.fuser_kernels,
                               "shape": list(shape), "eager_ops": eager_ops,
                               "seconds": round(seconds, 2)}
        print(f"[torch artifacts] host/{name}: {compiled.fuser_kernels} "
              f"({seconds:.2f} s)")


def build_elementwise(out, chip, index):
    """The fuser.torch.elementwise packages of elementwise_fns.FORMS into
    out/elementwise/ (forward and backward kernels per constants)."""
    shutil.rmtree(out / "elementwise", ignore_errors=True)
    (out / "elementwise").mkdir(parents=True)
    index["elementwise"] = {}
    for name, (fn, forms, n_tensors, dynamic) in \
            elementwise_fns.FORMS.items():
        kernel = ft.elementwise(fn, dynamic=dynamic, chip=chip, name=name)
        numel = 16 if dynamic else elementwise_fns.STATIC_NUMEL
        start = time.perf_counter()
        for consts in forms:
            kernel.compile(*[torch.empty(numel, device="meta")] * n_tensors,
                           *consts)
        seconds = time.perf_counter() - start
        kernel.save(out / "elementwise" / f"{name}.fuser")
        index["elementwise"][name] = {
            "kernels": kernel.fuser_kernels, "dynamic": dynamic,
            "seconds": round(seconds, 2)}
        counts = {form: {v: len(k) for v, k in variants.items()}
                  for form, variants in kernel.fuser_kernels.items()}
        print(f"[torch artifacts] elementwise/{name}: {counts} "
              f"({seconds:.2f} s)")


# torch.compile(backend="fuser") graph packages (fuser/torch/dynamo.py) of
# these training models: their data without grad and with x requiring grad.
DYNAMO = ["w2_small", "w3_small", "w2", "w3"]


def build_dynamo(out, chip, index):
    """Runs the DYNAMO models once through torch.compile(backend="fuser")
    on CPU tensors, for the graph packages it writes into out/dynamo
    (FUSER_CACHE_DIR on the GPU machine, which cannot compile: the graphs
    load from there). The CPU run stops at the kernels' launch, after the
    package is written."""
    import fuser
    import fuser.torch.dynamo as fd
    import torch._dynamo

    shutil.rmtree(out / "dynamo", ignore_errors=True)
    index["dynamo"] = {}
    with tempfile.TemporaryDirectory() as cache:
        for name in DYNAMO:
            seed = TRAINING[name][0]
            model, init, shape = training_model(name)
            torch._dynamo.reset()
            fd.COMPILED.clear()
            start = time.perf_counter()
            c = torch.compile(model, backend="fuser", dynamic=False,
                              options={"cache": cache, "chip": chip,
                                       "fallback": False})
            for dx in (False, True):
                try:
                    c(torch.zeros(shape).requires_grad_(dx))
                except fuser.FuserError as e:
                    if "on the CPU" not in str(e):
                        raise
            seconds = time.perf_counter() - start
            kernels = [r["kernels"] for r in fd.COMPILED]
            index["dynamo"][name] = {"seed": seed, "init": init,
                                     "shape": shape, "kernels": kernels,
                                     "seconds": round(seconds, 2)}
            print(f"[torch artifacts] dynamo/{name}: kernels "
                  f"{[{v: len(k) for v, k in g.items()} for g in kernels]} "
                  f"({seconds:.2f} s)")
        build_dynamo_split(cache, chip, index)
        build_partitioned_blocks(cache, chip, index)
        shutil.copytree(Path(cache) / "graphs", out / "dynamo" / "graphs")


def build_dynamo_split(cache, chip, index):
    """torch_models.SPLIT through torch.compile(backend="fuser") on the CPU,
    training: the graph is split, and each compiled run's kernels are
    replaced by the fx graph they were compiled from, so the step reaches
    every run (a kernel cannot launch here) and each writes its package."""
    import fuser.torch.dynamo as fd
    import torch._dynamo
    from fuser.torch._package import graphs_in_place_of_kernels

    with graphs_in_place_of_kernels():
        for name, (_, _, shape) in torch_models.SPLIT.items():
            torch._dynamo.reset()
            fd.COMPILED.clear()
            model = torch_models.build_split(name)
            c = torch.compile(model, backend="fuser", dynamic=False,
                              options={"cache": cache, "chip": chip,
                                       "fallback": False})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                c(torch.zeros(shape)).sum().backward()
            parts = [r for r in fd.COMPILED if r["kind"] != "split"]
            index["dynamo"][name] = {"shape": list(shape), "kernels": [
                r["kernels"] for r in parts]}
            print(f"[torch artifacts] dynamo/{name}: split, parts "
                  f"{[{v: len(k) for v, k in r['kernels'].items()} for r in parts]}")


def build_partitioned_blocks(cache, chip, index):
    """The convolutional blocks of model_blocks (timm's ConvNeXt and ResNet
    blocks, small and base) through fuser.torch.compile, training in train
    mode: partitioned (convolutions in PyTorch); one forward and backward
    on the CPU, each graph's fx graph in place of its kernels, writes the
    graph packages test_torch_dynamo.py (small) and bench/suite.py's
    training cases (base) load through torch.compile(backend="fuser")."""
    if not model_blocks.available():
        print("[torch artifacts] partitioned blocks: no timm here, skipped")
        return
    import torch._dynamo
    from fuser.torch._package import graphs_in_place_of_kernels

    with graphs_in_place_of_kernels():
        for name in model_blocks.partitioned():
            torch._dynamo.reset()
            model = model_blocks.build(name).train()
            x = torch.randn(model_blocks.shape(name))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                c = ft.compile(model, (x,), training=True, cache=cache,
                               chip=chip, fallback=False)
                c(x).sum().backward()
            if not isinstance(c, ft.PartitionedModule):
                raise RuntimeError(f"{name} compiled whole; expected a "
                                   "partition at its convolutions")
            index["dynamo"][name] = {"shape": list(model_blocks.shape(name)),
                                     "kernels": list(c.fuser_kernels.values())}
            print(f"[torch artifacts] dynamo/{name}: partitioned, "
                  f"{ {k: len(v) for k, v in c.fuser_kernels.items()} }")


def read_index(out, chip):
    index_path = out / "index.json"
    return (json.loads(index_path.read_text()) if index_path.exists()
            else {"torch": torch.__version__, "chip": chip,
                  "packages": {}, "model_new": {}})


def build_problems(out, chip, index):
    """ModelNew files of test/gpu/Inputs/problems/*.py in problems/. A
    problem that does not convert is recorded with its error (the GPU test
    reports it) and the build goes on."""
    (out / "problems").mkdir(parents=True, exist_ok=True)
    index["problems"] = {}
    for name in torch_models.PROBLEMS:
        start = time.perf_counter()
        try:
            text = kernelbench.convert(torch_models.PROBLEMS_DIR / f"{name}.py",
                                       chip=chip, cache=False)
        except Exception as e:  # noqa: BLE001 - recorded, reported on the GPU
            index["problems"][name] = {"error": f"{type(e).__name__}: {e}"}
            print(f"[torch artifacts] problems/{name}: FAILED: {e}")
            continue
        seconds = time.perf_counter() - start
        (out / "problems" / f"{name}_new.py").write_text(text)
        index["problems"][name] = {"seconds": round(seconds, 2)}
        print(f"[torch artifacts] problems/{name}_new.py ({seconds:.2f} s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / ".artifacts" / "torch")
    parser.add_argument("--chip", default="sm_90a")
    parser.add_argument("--only-training", action="store_true")
    parser.add_argument("--only-elementwise", action="store_true")
    parser.add_argument("--only-host", action="store_true")
    parser.add_argument("--only-problems", action="store_true")
    args = parser.parse_args()
    out = args.out
    if (args.only_training or args.only_elementwise or args.only_host
            or args.only_problems):
        index = read_index(out, args.chip)
        if args.only_training:
            shutil.rmtree(out / "training", ignore_errors=True)
            build_training(out, args.chip, index)
            build_dynamo(out, args.chip, index)
        if args.only_elementwise:
            build_elementwise(out, args.chip, index)
        if args.only_host:
            build_host(out, args.chip, index)
        if args.only_problems:
            shutil.rmtree(out / "problems", ignore_errors=True)
            build_problems(out, args.chip, index)
        (out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
        return 0
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    index = {"torch": torch.__version__, "chip": args.chip, "packages": {},
             "model_new": {}}

    for name, (cls, ctor, shape, dynamic) in torch_models.PACKAGES.items():
        model = torch_models.build(name)
        start = time.perf_counter()
        compiled = ft.compile(model, torch.empty(shape), dynamic=dynamic,
                              chip=args.chip, fallback=False)
        seconds = time.perf_counter() - start
        require_fused(name, compiled)
        ft.save(compiled, out / f"{name}.fuser")
        index["packages"][name] = {"kernels": compiled.fuser_kernels,
                                   "seconds": round(seconds, 2)}
        print(f"[torch artifacts] {name}: {compiled.fuser_kernels} "
              f"({seconds:.2f} s)")

    torch.manual_seed(torch_models.WEIGHTS_SEED)
    model = torch_models.LinearLeaky()
    compiled = ft.compile(model, torch.empty(64, 256), dynamic="batch",
                          chip=args.chip, fallback=False)
    ft.save(compiled, out / torch_models.WEIGHTS_PACKAGE, weights=True)
    print(f"[torch artifacts] {torch_models.WEIGHTS_PACKAGE}")

    for seed in torch_models.SEEDS + torch_models.PARTITIONED_SEEDS:
        start = time.perf_counter()
        text = kernelbench.convert(ROOT / "examples" / "torch" / f"{seed}.py",
                                   chip=args.chip)
        seconds = time.perf_counter() - start
        (out / f"{seed}_new.py").write_text(text)
        index["model_new"][seed] = {"seconds": round(seconds, 2)}
        print(f"[torch artifacts] {seed}_new.py ({seconds:.2f} s)")

    build_problems(out, args.chip, index)
    build_training(out, args.chip, index)
    build_dynamo(out, args.chip, index)
    build_elementwise(out, args.chip, index)
    build_host(out, args.chip, index)

    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
