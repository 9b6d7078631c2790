"""fuser.torch on the GPU: packages and ModelNew files compiled elsewhere
(scripts/build-torch-artifacts.py, into .artifacts/torch/) against the same
models run eagerly in fp32, by the users' rule: output shapes equal, then
torch.allclose at atol = rtol = 1e-4 on 5 trials with fresh torch.rand
inputs; at batch 1, 7 and the real size where the package has a dynamic
batch. Needs torch and fuser's runtime only (no MLIR, no torch-mlir).
"""

import copy
import importlib.util
import json
import sys
from pathlib import Path

import pytest
import torch

import fuser
import fuser.torch as ft
from gpu_util import ARTIFACTS

sys.path.insert(0, str(Path(__file__).parent / "Inputs"))
import torch_models  # noqa: E402

TORCH_ARTIFACTS = ARTIFACTS / "torch"
TOL = 1e-4
TRIALS = 5
# Compared in slices of this many elements: W1's 1.6 G elements would need
# several 6.4 GB temporaries at once.
CHUNK = 1 << 26

if not (TORCH_ARTIFACTS / "index.json").exists():
    pytest.skip(f"{TORCH_ARTIFACTS} missing: run scripts/build-gpu-artifacts.sh "
                "(or scripts/build-torch-artifacts.py) where torch-mlir is",
                allow_module_level=True)


pytestmark = pytest.mark.usefixtures("fp32_reference")


def leaves(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, dict):
        return [t for v in out.values() for t in leaves(v)]
    return [t for v in out for t in leaves(v)]


def users_rule(name, new, ref):
    """Output structure and shapes equal, then allclose(ref, new, 1e-4);
    returns the max abs error."""
    assert type(new) is type(ref), f"{name}: {type(new)} != {type(ref)}"
    worst = 0.0
    for i, (n, r) in enumerate(zip(leaves(new), leaves(ref))):
        assert n.shape == r.shape, f"{name}[{i}]: shape {tuple(n.shape)} != {tuple(r.shape)}"
        assert n.dtype == r.dtype and n.device == r.device
        a, b = n.reshape(-1), r.reshape(-1)
        for s in range(0, a.numel(), CHUNK):
            x, y = a[s:s + CHUNK], b[s:s + CHUNK]
            err = (x - y).abs()
            worst = max(worst, float(err.max()) if err.numel() else 0.0)
            # torch.allclose(ref, new): |ref - new| <= atol + rtol * |new|.
            if not torch.allclose(y, x, atol=TOL, rtol=TOL):
                bad = int((err > TOL + TOL * x.abs()).sum())
                pytest.fail(f"{name}[{i}]: {bad} of {x.numel()} elements from "
                            f"offset {s} exceed atol=rtol={TOL} (max abs error "
                            f"{float(err.max()):.3e})")
    assert len(leaves(new)) == len(leaves(ref))
    return worst


def compare(name, model, compiled, shape, batches):
    worst = 0.0
    with torch.no_grad():
        for batch in batches:
            for _ in range(TRIALS):
                x = torch.rand((batch,) + tuple(shape[1:]), device="cuda")
                worst = max(worst, users_rule(f"{name} batch {batch}",
                                              compiled(x), model(x)))
    print(f"[gpu tests] fuser.torch {name}: max abs error {worst:.3e} "
          f"(batches {batches}, {TRIALS} trials each)")


@pytest.mark.parametrize("name", sorted(torch_models.PACKAGES))
def test_package_matches_eager(name):
    _, _, shape, dynamic = torch_models.PACKAGES[name]
    model = torch_models.build(name, seed=7, device="cuda")
    compiled = ft.load(TORCH_ARTIFACTS / f"{name}.fuser", module=model)
    print(f"[gpu tests] {name}: {compiled.fuser_kernels}")
    batches = [1, 7, shape[0]] if dynamic else [shape[0]]
    compare(name, model, compiled, shape, batches)


def test_batchnorm_running_statistics_written_back():
    """BatchNorm in training mode: the outputs (batch statistics) and the
    running mean, variance and count after each call equal eager's."""
    name = "linear_batchnorm_static"
    model = torch_models.build(name, seed=7, device="cuda")
    eager = copy.deepcopy(model)
    compiled = ft.load(TORCH_ARTIFACTS / f"{name}.fuser", module=model)
    worst = 0.0
    with torch.no_grad():
        for batch in (64, 64, 64):
            x = torch.rand(batch, 256, device="cuda")
            worst = max(worst, users_rule(f"{name} batch {batch}",
                                          compiled(x), eager(x)))
            for buf in ("running_mean", "running_var"):
                worst = max(worst, users_rule(
                    f"{name} batch {batch}: {buf}",
                    getattr(model.bn, buf), getattr(eager.bn, buf)))
            assert torch.equal(model.bn.num_batches_tracked,
                               eager.bn.num_batches_tracked)
    assert int(model.bn.num_batches_tracked) == 3
    print(f"[gpu tests] {name}: running statistics written back, max abs "
          f"error {worst:.3e}")


def test_weight_updates_reach_the_kernels():
    """The kernels read the module's state on every call: in-place updates,
    load_state_dict and .to() all count."""
    name = "linear_leaky_dynamic"
    _, _, shape, _ = torch_models.PACKAGES[name]
    model = torch_models.build(name, seed=3)  # On the CPU.
    compiled = ft.load(TORCH_ARTIFACTS / f"{name}.fuser", module=model)
    compiled.to("cuda")
    assert model.lin.weight.is_cuda
    compare(f"{name} after .to", model, compiled, shape, [shape[0]])
    with torch.no_grad():
        model.lin.weight.mul_(-0.5)
        model.lin.bias.add_(1.0)
    compare(f"{name} updated in place", model, compiled, shape, [shape[0]])
    other = torch_models.build(name, seed=11, device="cuda")
    compiled.load_state_dict(other.state_dict())
    assert torch.equal(model.lin.weight, other.lin.weight)
    compare(f"{name} load_state_dict", other, compiled, shape, [7])


def test_package_with_weights():
    """A zip package with its weights, loaded without a module."""
    compiled = ft.load(TORCH_ARTIFACTS / torch_models.WEIGHTS_PACKAGE,
                       map_location="cuda")
    torch.manual_seed(torch_models.WEIGHTS_SEED)
    model = torch_models.LinearLeaky().cuda()
    for k, v in model.state_dict().items():
        assert torch.equal(compiled.state_dict()[k], v), k
    compare("weights package", model, compiled, (64, 256), [1, 7, 64])


def test_missing_variant_is_a_readable_error():
    name = "linear_leaky_static"
    model = torch_models.build(name, device="cuda")
    compiled = ft.load(TORCH_ARTIFACTS / f"{name}.fuser", module=model)
    with pytest.raises(fuser.FuserError, match="no compiled variant takes"):
        compiled(torch.rand(7, 256, device="cuda"))


def load_model_new(seed, directory=TORCH_ARTIFACTS):
    path = directory / f"{seed}_new.py"
    spec = importlib.util.spec_from_file_location(f"{seed}_new", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def harness_pair(m):
    """(Model, ModelNew) of a ModelNew file's module `m` as a harness builds
    them: the same seed before each constructor, then .to(device, dtype)."""
    init = m.get_init_inputs()
    torch.manual_seed(2024)
    ref = m.Model(*init).to("cuda", torch.float32)
    torch.manual_seed(2024)
    return ref, m.ModelNew(*init).to("cuda", torch.float32)


@pytest.mark.parametrize("seed", torch_models.SEEDS)
def test_model_new_users_rule(seed):
    """The generated ModelNew against the problem's Model, built as the
    harness builds them: the same seed before each constructor, then
    .to(device, dtype); inputs of get_inputs()'s shapes at batch 1, 7 and
    the real size."""
    m = load_model_new(seed)
    ref, new = harness_pair(m)
    for (k, a), b in zip(ref.state_dict().items(), new.state_dict().values()):
        assert torch.equal(a, b), f"{seed}: {k} differs: the parameters must match"
    with torch.device("meta"):
        shapes = [tuple(t.shape) for t in m.get_inputs()]
    print(f"[gpu tests] {seed}_new.py: {new.fuser_kernels}")
    worst = 0.0
    with torch.no_grad():
        for batch in (1, 7, shapes[0][0]):
            for _ in range(TRIALS):
                inputs = [torch.rand((batch,) + s[1:], device="cuda") for s in shapes]
                out = new(*inputs)
                worst = max(worst, users_rule(f"{seed} batch {batch}", out, ref(*inputs)))
                del out, inputs
            torch.cuda.empty_cache()
    print(f"[gpu tests] {seed}_new.py: max abs error {worst:.3e} (batches 1, 7, "
          f"{shapes[0][0]}; {TRIALS} trials each)")


@pytest.mark.parametrize("seed", torch_models.PARTITIONED_SEEDS)
def test_partitioned_model_new_users_rule(seed):
    """A partitioned ModelNew (ops left to PyTorch: conv_stem's
    convolution) against its Model as the harness builds them, in training
    mode as built: each graph's package loaded from the file (none
    compiled here), outputs at the users' rule and the running statistics
    equal to eager's after TRIALS calls at get_inputs()'s shapes."""
    m = load_model_new(seed)
    ref, new = harness_pair(m)
    with torch.device("meta"):
        shapes = [tuple(t.shape) for t in m.get_inputs()]
    worst = 0.0
    for _ in range(TRIALS):
        inputs = [torch.randn(s, device="cuda") for s in shapes]
        out = new(*inputs)
        with torch.no_grad():
            want = ref(*inputs)
        worst = max(worst, users_rule(f"{seed}_new", out, want))
    for (k, a), b in zip(ref.state_dict().items(), new.state_dict().values()):
        torch.testing.assert_close(b, a, atol=TOL, rtol=TOL, msg=k)
    graphs = new._fuser_graphs()
    assert graphs and all(g["loaded"] and g["eager"] is None for g in graphs), \
        graphs
    print(f"[gpu tests] {seed}_new.py: {new.fuser_kernels}, in PyTorch: "
          f"{[op[0] for op in new.fuser_pytorch_ops]}; max abs error "
          f"{worst:.3e} ({TRIALS} trials)")


# Problems whose outputs cancel to near 0 in places (sums of thousands of
# products of both signs: KernelBench's Gemm_Divide_Sum_Scaling sums rows of
# x @ W^T with W from randn), where any two fp32 summation orders differ by
# more than 1e-4 and eager itself misses a float64 run by 2e-2: checked as
# accurate as eager, against a float64 run of the Model.
CANCELLING = {"gemm_divide_sum_scaling"}


def as_accurate_as_eager(name, new, eager, exact):
    """Output structure, shapes and dtypes equal to eager's; every element
    within the users' tolerance of the float64 result widened by eager's
    largest error against it. Returns new's max error against float64."""
    assert type(new) is type(eager), f"{name}: {type(new)} != {type(eager)}"
    assert len(leaves(new)) == len(leaves(eager)) == len(leaves(exact))
    worst = worst_eager = 0.0
    for i, (n, e, x) in enumerate(zip(leaves(new), leaves(eager), leaves(exact))):
        assert n.shape == e.shape == x.shape, f"{name}[{i}]: shapes differ"
        assert n.dtype == e.dtype and n.device == e.device
        err, err_eager = (n.double() - x).abs(), (e.double() - x).abs()
        slack = float(err_eager.max())
        bad = int((err > TOL + TOL * x.abs() + slack).sum())
        assert bad == 0, (f"{name}[{i}]: {bad} elements farther from float64 than "
                          f"1e-4 plus eager's largest error {slack:.3e} "
                          f"(max {float(err.max()):.3e})")
        worst = max(worst, float(err.max()))
        worst_eager = max(worst_eager, slack)
    print(f"[gpu tests] {name}: max error against float64 {worst:.3e} "
          f"(eager {worst_eager:.3e})")
    return worst


@pytest.mark.parametrize("name", torch_models.PROBLEMS)
def test_problem_model_new_users_rule(name):
    """Each form of Inputs/problems (losses after a Linear, masked products,
    BatchNorm and dropout in training mode, scans, pooling) as a ModelNew
    file, against its Model as the harness builds and calls them: the same
    seed before each constructor, and before each call (dropout draws from
    PyTorch's generator in both), get_inputs()'s tensors, 3 calls; the
    module state (BatchNorm's running statistics) equal after them."""
    entry = json.loads((TORCH_ARTIFACTS / "index.json").read_text())[
        "problems"][name]
    if "error" in entry:
        pytest.fail(f"{name}: the converter failed: {entry['error']}")
    m = load_model_new(name, TORCH_ARTIFACTS / "problems")
    ref, new = harness_pair(m)

    def rule(what, out, want, inputs):
        if name not in CANCELLING:
            return users_rule(what, out, want)
        with torch.no_grad():
            exact = copy.deepcopy(ref).double()(*[t.double() for t in inputs])
        return as_accurate_as_eager(what, out, want, exact)

    worst = 0.0
    for trial in range(3):
        torch.manual_seed(trial)
        inputs = [t.to("cuda") for t in m.get_inputs()]
        torch.manual_seed(100 + trial)
        out = new(*inputs)
        torch.manual_seed(100 + trial)
        with torch.no_grad():
            want = ref(*inputs)
        worst = max(worst, rule(name, out, want, inputs))
    for (k, a), b in zip(ref.state_dict().items(), new.state_dict().values()):
        torch.testing.assert_close(b, a, atol=TOL, rtol=TOL, msg=k)
    if isinstance(new, ft.PartitionedModule):
        # Every graph from the file's packages: none fell back to eager.
        graphs = new._fuser_graphs()
        assert graphs and not new._fuser_eager and all(
            g["loaded"] and g["eager"] is None for g in graphs), graphs
    # Small batches through the dynamic-batch variant, where the file has
    # one: the inputs whose dim 0 it takes as the batch, cut to 1 and 7.
    package = getattr(new, "fuser_package", None)  # None: partitioned
    batch = next((v for v in package.variants if v.name == "batch"),
                 None) if package is not None else None
    if batch is not None:
        specs = batch.arg_specs[-len(inputs):]
        for size in (1, 7):
            torch.manual_seed(size)
            cut = [t[:size] if shape and shape[0] is None else t
                   for t, (_, shape) in zip(m.get_inputs(), specs)]
            cut = [t.to("cuda") for t in cut]
            with torch.no_grad():
                worst = max(worst, rule(f"{name} batch {size}", new(*cut),
                                        ref(*cut), cut))
    left = [op[0] for op in getattr(new, "fuser_pytorch_ops", [])]
    print(f"[gpu tests] problems/{name}_new.py: {new.fuser_kernels}"
          f"{f', in PyTorch: {left}' if left else ''}; max abs error "
          f"{worst:.3e} (3 calls{', batches 1 and 7' if batch else ''})")


def test_no_torch_mlir_needed():
    """Nothing above imported torch-mlir (it is not on the GPU machine, but
    a local run must not lean on it either)."""
    assert not any(m == "torch_mlir" or m.startswith("torch_mlir.")
                   for m in sys.modules)
