#!/usr/bin/env python3
"""Regenerates the torch-mlir exports that lit tests read as real front-end
input: test/Pipelines/Inputs/torch_*.mlir.

Each model is exported with torch-mlir's FX importer to linalg on tensors
(output_type="linalg-on-tensors") from `meta` tensors, as fuser.torch.compile does; dynamic dims come from
torch.export.Dim and arrive as `?`. The outputs are committed, so the lit
suite needs neither torch nor torch-mlir; rerun this after a torch-mlir
upgrade and review the diff.

These exports keep torch-mlir's scalar constant forms: 0-d tensor constants
read through `(d0, d1) -> ()` (the zero of leaky_relu, hardtanh's bounds)
and f64 constants `arith.truncf`'d inside bodies (the slope), which fusion
must turn into immediates (test/Pipelines/torch-scalar-constants.mlir).

Set-up (outside the repository; ~5.7 GB with torch's CUDA packages, about
two minutes from PyPI):
    python3 -m venv /tmp/tmvenv
    /tmp/tmvenv/bin/pip install torch==2.14.1 torch-mlir==20261001
Run from anywhere (the project venv, `make venv`, has both):
    .venv/bin/python scripts/export-torch-inputs.py [torch_foo.mlir ...]
(no names: every export).
"""

import pathlib

import torch
import torch.nn.functional as F

OUT = pathlib.Path(__file__).resolve().parent.parent / "test/Pipelines/Inputs"


class LeakyRelu(torch.nn.Module):
    def forward(self, x):
        return F.leaky_relu(x, 0.01)


class Hardtanh(torch.nn.Module):
    def forward(self, x):
        return F.hardtanh(x, -2.0, 3.0)


class Elu(torch.nn.Module):
    def forward(self, x):
        return F.elu(x, 1.5)


class LinearLeakyRelu(torch.nn.Module):
    """nn.Linear's x·Wᵀ + b then leaky_relu, weight and bias as arguments."""

    def forward(self, x, w, b):
        return F.leaky_relu(F.linear(x, w, b), 0.2)


class WithParams(torch.nn.Module):
    """Runs `module` on x with its parameters and buffers passed as
    arguments after x, in named_parameters() then named_buffers() order
    (torch.func.functional_call), so the export takes the weights as
    function arguments: no multi-megabyte constants, and they can change."""

    def __init__(self, module):
        super().__init__()
        self.module = module
        self.names = [n for n, _ in module.named_parameters()] + [
            n for n, _ in module.named_buffers()]

    def forward(self, x, *weights):
        return torch.func.functional_call(
            self.module, dict(zip(self.names, weights)), (x,))

    def weights(self):
        return [t for _, t in self.module.named_parameters()] + [
            t for _, t in self.module.named_buffers()]


class LinearGroupNorm(torch.nn.Module):
    """W3 (examples/torch/w3.py): Linear -> GroupNorm -> LeakyReLU
    -> y + y. Arguments: x, linear.weight, linear.bias, gn.weight, gn.bias
    (no gn.weight and gn.bias with affine=False)."""

    def __init__(self, features, groups, affine=True):
        super().__init__()
        self.linear = torch.nn.Linear(features, features)
        self.gn = torch.nn.GroupNorm(groups, features, eps=1e-5,
                                     affine=affine)

    def forward(self, x):
        y = F.leaky_relu(self.gn(self.linear(x)), 0.01)
        return y + y


class W2(torch.nn.Module):
    """W2 (examples/torch/w2.py; KernelBench level 2, problem 12):
    leaky_relu(nn.Linear(x) * 2.0, 0.1)."""

    def __init__(self, in_features=8192, out_features=8192):
        super().__init__()
        self.linear = torch.nn.Linear(in_features, out_features)

    def forward(self, x):
        return F.leaky_relu(self.linear(x) * 2.0, 0.1)


def meta(*shape):
    return torch.empty(*shape, device="meta")


batch = torch.export.Dim("batch")

# (file name, model, example inputs, dynamic_shapes)
EXPORTS = [
    ("torch_leaky_relu.mlir", LeakyRelu(), (meta(4, 1000),), None),
    ("torch_leaky_relu_dynamic.mlir", LeakyRelu(), (meta(4, 1000),),
     {"x": {0: batch}}),
    ("torch_hardtanh.mlir", Hardtanh(), (meta(4, 1000),), None),
    ("torch_elu.mlir", Elu(), (meta(4, 1000),), None),
    ("torch_linear_leaky_relu.mlir", LinearLeakyRelu(),
     (meta(8, 32), meta(64, 32), meta(64)), {"x": {0: batch}, "w": None,
                                             "b": None}),
]

# Normalisations (torch-mlir's GroupNorm / LayerNorm / InstanceNorm
# decompositions), weights as arguments (WithParams), modules built on meta.
def norm_export(name, module, x, batch_dim=None):
    with torch.device("meta"):
        wrapped = WithParams(module())
    weights = wrapped.weights()
    dynamic = None
    if batch_dim is not None:
        dynamic = {"x": {0: batch_dim}, "weights": (None,) * len(weights)}
    return (name, wrapped, (x, *weights), dynamic)


EXPORTS += [
    norm_export("torch_w3_linear_group_norm.mlir",
                lambda: LinearGroupNorm(8192, 512), meta(1024, 8192)),
    norm_export("torch_w3_linear_group_norm_dynamic.mlir",
                lambda: LinearGroupNorm(8192, 512), meta(1024, 8192), batch),
    norm_export("torch_linear_group_norm_small.mlir",
                lambda: LinearGroupNorm(64, 4), meta(8, 64)),
    norm_export("torch_group_norm_4d_dynamic.mlir",
                lambda: torch.nn.GroupNorm(4, 8), meta(2, 8, 5, 7), batch),
    norm_export("torch_layer_norm.mlir", lambda: torch.nn.LayerNorm(64),
                meta(8, 64), batch),
    norm_export("torch_layer_norm_3d_dynamic.mlir",
                lambda: torch.nn.LayerNorm(64), meta(2, 8, 64), batch),
    norm_export("torch_instance_norm.mlir",
                lambda: torch.nn.InstanceNorm2d(6, affine=True),
                meta(2, 6, 5, 7)),
    norm_export("torch_linear_group_norm_no_affine.mlir",
                lambda: LinearGroupNorm(64, 4, affine=False), meta(8, 64),
                batch),
]

# W2 at its real sizes, weights as arguments: x, linear.weight, linear.bias.
EXPORTS += [
    norm_export("torch_w2.mlir", W2, meta(1024, 8192)),
    norm_export("torch_w2_dynamic.mlir", W2, meta(1024, 8192), batch),
    # Odd sizes for the CPU equivalence test (cpu-equivalence-torch-w2).
    norm_export("torch_w2_small.mlir", lambda: W2(37, 19), meta(5, 37),
                batch),
]


# The corpus (issue 13): small models of the forms users write, each with
# its ideal kernel count in test/Pipelines/torch-corpus.mlir, and run on the
# CPU against PyTorch eager by python-bindings/tests/test_torch_corpus.py.
# Weights are arguments (WithParams); nn.Linear(32, 64) on a dynamic batch
# unless a model needs otherwise.
class LinearAct(torch.nn.Module):
    """nn.Linear then `act` (a function of the linear's output)."""

    def __init__(self, act, n_in=32, n_out=64):
        super().__init__()
        self.linear = torch.nn.Linear(n_in, n_out)
        self.act = act

    def forward(self, x):
        return self.act(self.linear(x))


class LinearScaleResidual(torch.nn.Module):
    """y = linear(x); y * 0.5 + y (scaling and a residual of the linear's
    own output) + x (a residual of the input: in = out features)."""

    def __init__(self, n=32):
        super().__init__()
        self.linear = torch.nn.Linear(n, n)

    def forward(self, x):
        y = self.linear(x)
        return y * 0.5 + y + x


class LinearNormAct(torch.nn.Module):
    """nn.Linear -> `norm` -> `act`."""

    def __init__(self, norm, act, n_in=32, n_out=64):
        super().__init__()
        self.linear = torch.nn.Linear(n_in, n_out)
        self.norm = norm
        self.act = act

    def forward(self, x):
        return self.act(self.norm(self.linear(x)))


class Bmm(torch.nn.Module):
    def forward(self, a, b):
        return torch.bmm(a, b)


class BmmScale(torch.nn.Module):
    def forward(self, a, b):
        return torch.relu(torch.bmm(a, b) * 0.125)


class TransposedLeft(torch.nn.Module):
    """x.T @ W + b (x given as K x M, as in a weight-gradient-style
    product; the weight not transposed) then ReLU."""

    def __init__(self, k=32, n=64):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(k, n))
        self.bias = torch.nn.Parameter(torch.empty(n))

    def forward(self, x):
        return torch.relu(x.T @ self.weight + self.bias)


class MatmulTriu(torch.nn.Module):
    """A causal-style mask after a matmul: an i1 mask (from linalg.index)
    and arith.select. Exported from CPU tensors: torch-mlir fails to lower
    triu/tril traced on meta."""

    def __init__(self, lower=False):
        super().__init__()
        self.lower = lower

    def forward(self, a, b):
        y = a @ b
        return torch.tril(y, -1) if self.lower else torch.triu(y)


class LinearArange(torch.nn.Module):
    """torch.arange in the epilogue: linalg.index in a body."""

    def __init__(self, n_in=32, n_out=64):
        super().__init__()
        self.linear = torch.nn.Linear(n_in, n_out)

    def forward(self, x):
        return self.linear(x) + torch.arange(64, device=x.device) * 0.01


class LinearFloatArg(torch.nn.Module):
    """A Python float argument: export specialises it into the body and
    leaves an unused f64 scalar function argument."""

    def forward(self, x, w, b, scale: float):
        return F.linear(x, w, b) * scale


class RMSNormRows(torch.nn.Module):
    """RMSNorm over the last dimension with a weight, as LLMs write it."""

    def __init__(self, dim=96, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class RMSNormChannels(torch.nn.Module):
    """x / sqrt(mean(x^2) + eps) over the channels of NCHW."""

    def forward(self, x):
        return x / torch.sqrt(torch.mean(x * x, dim=1, keepdim=True) + 1e-5)


class L2NormalizeRows(torch.nn.Module):
    """F.normalize over rows: the norm clamped, then broadcast (expand_as)."""

    def forward(self, x):
        return F.normalize(x, dim=-1)


class SoftmaxRows(torch.nn.Module):
    def __init__(self, log=False):
        super().__init__()
        self.log = log

    def forward(self, x):
        return (torch.log_softmax if self.log else torch.softmax)(x, dim=-1)


class Scan(torch.nn.Module):
    """torch.cumsum (or cumprod) along `dim`: torch-mlir's tm_tensor.scan;
    `masked`, of x where x > 0; `reverse`, from the end (flipped)."""

    def __init__(self, dim, prod=False, masked=False, reverse=False):
        super().__init__()
        self.dim, self.prod, self.masked, self.reverse = dim, prod, masked, reverse

    def forward(self, x):
        scan = torch.cumprod if self.prod else torch.cumsum
        if self.masked:
            x = x * (x > 0)
        if self.reverse:
            return scan(x.flip(self.dim), self.dim).flip(self.dim)
        return scan(x, self.dim)


class Product(torch.nn.Module):
    """`fn(a, b)` of two inputs: torch.matmul of a 3-D tensor and a matrix,
    or an einsum."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, a, b):
        return self.fn(a, b)


def max_subtract_gelu(y):
    m = y.max(1, keepdim=True).values
    return F.gelu(m - m.mean(1, keepdim=True))


class RowLoss(torch.nn.Module):
    """A loss over rows of class scores against integer targets (the
    corpus tests draw an integer input as class indices into the first
    input's last dimension), or logsumexp of the rows when `loss` is None."""

    def __init__(self, loss=None, **options):
        super().__init__()
        self.loss = loss
        self.options = options

    def forward(self, x, target):
        if self.loss is None:
            return torch.logsumexp(x, dim=1) + target.to(x.dtype)
        return self.loss(x, target, **self.options)


def nll_of_log_softmax(x, target):
    return F.nll_loss(F.log_softmax(x, 1), target)


class Embedding(torch.nn.Module):
    """F.embedding of a table argument: torch-mlir's gather checks each
    index with cf.assert in the generic's body. The corpus tests draw its
    integer input below `index_bound` (the table's rows)."""

    def __init__(self, rows):
        super().__init__()
        self.index_bound = rows

    def forward(self, table, tokens):
        return F.embedding(tokens, table)


def class_targets(shape, classes, generator, device="cpu"):
    """The corpus tests' integer inputs: indices below `classes` (the
    model's index_bound, else the first input's last dimension), a
    third of them among the first 16 (so that an ignore_index there
    occurs)."""
    t = torch.randint(0, classes, shape, generator=generator, device=device)
    t.view(-1)[::3] = torch.randint(0, min(classes, 16), t.view(-1)[::3].shape,
                                    generator=generator, device=device)
    return t


def scores_and_targets(rows, classes):
    """CPU tensors: torch-mlir cannot lower the losses' meta exports (a
    device constant is left over), as fuser.torch finds and does too."""
    return torch.empty(rows, classes), torch.zeros(rows, dtype=torch.int64)


def corpus_export(name, module, *inputs, dynamic=True):
    """A model with weights as arguments (WithParams); the first input's
    dim 0 is the dynamic batch when `dynamic`."""
    with torch.device("meta"):
        wrapped = WithParams(module())
    weights = wrapped.weights()
    spec = None
    if dynamic:
        spec = {"x": {0: batch}}
        if weights:
            spec["weights"] = (None,) * len(weights)
    return (name, wrapped, (inputs[0], *weights), spec)


def act(f):
    return lambda: LinearAct(f)


EXPORTS += [
    corpus_export("torch_linear_relu.mlir", act(torch.relu), meta(8, 32)),
    corpus_export("torch_linear_hardtanh.mlir",
                  act(lambda y: F.hardtanh(y, -0.5, 0.5)), meta(8, 32)),
    corpus_export("torch_linear_elu.mlir", act(lambda y: F.elu(y, 1.2)),
                  meta(8, 32)),
    corpus_export("torch_linear_selu.mlir", act(F.selu), meta(8, 32)),
    corpus_export("torch_linear_gelu.mlir", act(F.gelu), meta(8, 32)),
    corpus_export("torch_linear_gelu_tanh.mlir",
                  act(lambda y: F.gelu(y, approximate="tanh")), meta(8, 32)),
    corpus_export("torch_linear_mish.mlir", act(F.mish), meta(8, 32)),
    corpus_export("torch_linear_silu.mlir", act(F.silu), meta(8, 32)),
    corpus_export("torch_linear_swish.mlir",
                  act(lambda y: y * torch.sigmoid(y)), meta(8, 32)),
    corpus_export("torch_linear_sigmoid_tanh.mlir",
                  act(lambda y: torch.tanh(torch.sigmoid(y) * 2.0)),
                  meta(8, 32)),
    corpus_export("torch_linear_scale_residual.mlir", LinearScaleResidual,
                  meta(8, 32)),
    corpus_export("torch_linear_group_norm_gelu.mlir",
                  lambda: LinearNormAct(torch.nn.GroupNorm(4, 64), F.gelu),
                  meta(8, 32)),
    corpus_export("torch_linear_group_norm_silu.mlir",
                  lambda: LinearNormAct(torch.nn.GroupNorm(8, 64), F.silu),
                  meta(8, 32)),
    # One group of 256 columns: wider than a GEMM tile, two kernels.
    corpus_export("torch_linear_group_norm_wide.mlir",
                  lambda: LinearNormAct(torch.nn.GroupNorm(1, 256),
                                        torch.relu, 32, 256), meta(8, 32)),
    corpus_export("torch_linear_layer_norm_relu.mlir",
                  lambda: LinearNormAct(torch.nn.LayerNorm(64), torch.relu),
                  meta(8, 32)),
    corpus_export("torch_transposed_left.mlir", TransposedLeft,
                  meta(32, 8), dynamic=False),
    corpus_export("torch_linear_arange.mlir", LinearArange, meta(8, 32)),
    ("torch_bmm.mlir", Bmm(), (meta(3, 8, 16), meta(3, 16, 24)),
     {"a": {0: batch}, "b": {0: batch}}),
    ("torch_bmm_scale_relu.mlir", BmmScale(),
     (meta(3, 8, 16), meta(3, 16, 24)), None),
    ("torch_matmul_triu.mlir", MatmulTriu(),
     (torch.empty(16, 8), torch.empty(8, 16)), None),
    ("torch_matmul_tril.mlir", MatmulTriu(lower=True),
     (torch.empty(16, 8), torch.empty(8, 16)), None),
    # A mask too large to evaluate at compile time (320 x 320 > 64 Ki).
    ("torch_matmul_triu_large.mlir", MatmulTriu(),
     (torch.empty(320, 8), torch.empty(8, 320)), None),
    ("torch_linear_float_arg.mlir", LinearFloatArg(),
     (meta(8, 32), meta(64, 32), meta(64), 0.5), None),
    # A reduction and its broadcast consumer: one kernel each.
    corpus_export("torch_softmax_rows.mlir", SoftmaxRows, meta(8, 128)),
    corpus_export("torch_log_softmax_rows.mlir", lambda: SoftmaxRows(True),
                  meta(8, 100)),
    # Rows too long for one block's share of L2: clusters of blocks per row.
    corpus_export("torch_softmax_long_rows.mlir", SoftmaxRows,
                  meta(4, 65537)),
    corpus_export("torch_rms_norm_rows.mlir", RMSNormRows, meta(8, 96)),
    # A dynamic batch: torch-mlir broadcasts the norms with tensor.extract at
    # a run-time select and asserts the batch is not negative.
    corpus_export("torch_l2_normalize_rows.mlir", L2NormalizeRows,
                  meta(8, 64)),
    corpus_export("torch_rms_norm_channels.mlir", RMSNormChannels,
                  meta(2, 16, 5, 7)),
    # Row reductions after a Linear (KernelBench's Gemm_Divide_Sum_Scaling,
    # Gemm_Max_Subtract_GELU, Matmul_GELU_Softmax, Matmul_MaxPool_Sum_Scale).
    corpus_export("torch_linear_row_sum.mlir",
                  act(lambda y: (y / 2).sum(1, keepdim=True) * 1.5), meta(8, 32)),
    corpus_export("torch_linear_max_subtract_gelu.mlir", act(max_subtract_gelu),
                  meta(8, 32)),
    corpus_export("torch_linear_gelu_softmax.mlir",
                  act(lambda y: torch.softmax(F.gelu(y), 1)), meta(8, 32)),
    corpus_export("torch_linear_maxpool_sum.mlir",
                  act(lambda y: F.max_pool1d(y.unsqueeze(1), 2).squeeze(1).sum(1) * 0.5),
                  meta(8, 32)),
    # Higher-rank operands: a 3-D tensor times a matrix, and an einsum whose
    # output transpose moves only a unit dimension (a view).
    ("torch_matmul_3d.mlir", Product(torch.matmul), (meta(3, 4, 5), meta(5, 6)),
     None),
    ("torch_einsum_4d.mlir", Product(lambda a, b: torch.einsum("bijl,lk->bijk", a, b)),
     (meta(2, 3, 4, 5), meta(5, 6)), None),
    # Scans (tm_tensor.scan, renamed fuser.scan): along rows, down the
    # dynamic batch, of a masked input, and from the end.
    corpus_export("torch_cumsum_rows.mlir", lambda: Scan(1), meta(8, 100)),
    corpus_export("torch_cumprod_batch.mlir", lambda: Scan(0, prod=True),
                  meta(8, 6)),
    corpus_export("torch_masked_cumsum.mlir", lambda: Scan(1, masked=True),
                  meta(8, 50)),
    corpus_export("torch_reverse_cumsum.mlir",
                  lambda: Scan(-1, reverse=True), meta(4, 3, 20)),
    # Losses over rows of 1000 classes (ImageNet's): the softmax statistics
    # alone in one kernel, 250 vectors a row over 32 threads, then the pick
    # of each row's target and the mean.
    ("torch_cross_entropy.mlir", RowLoss(F.cross_entropy),
     scores_and_targets(8, 1000), {"x": {0: batch}, "target": {0: batch}}),
    ("torch_cross_entropy_smoothed.mlir",
     RowLoss(F.cross_entropy, label_smoothing=0.1, ignore_index=7),
     scores_and_targets(65, 1000), None),
    ("torch_nll_log_softmax.mlir", RowLoss(nll_of_log_softmax),
     scores_and_targets(65, 1000), None),
    ("torch_logsumexp_rows.mlir", RowLoss(),
     scores_and_targets(8, 1000), {"x": {0: batch}, "target": {0: batch}}),
    # A lookup whose extents the fallback's 16 x 16 tiles divide.
    ("torch_embedding.mlir", Embedding(100),
     (torch.empty(100, 64), torch.zeros(32, dtype=torch.int64)), None),
]


# Backward graphs as fuser.torch.compile(training=True) imports them (AOT
# Autograd's partition, then torch-mlir's FX importer): W2's, with input
# gradients and with parameter gradients only, and W3's (needs fuser's
# Python package on PYTHONPATH, e.g. build/python_packages).
BACKWARD_EXPORTS = [
    # (file name, model, batch, input gradients)
    ("torch_w2_backward.mlir", lambda: W2(8192, 8192), 1024, True),
    ("torch_w2_params_backward.mlir", lambda: W2(8192, 8192), 1024, False),
    ("torch_w2_small_backward.mlir", lambda: W2(40, 24), 7, True),
    ("torch_w3_backward.mlir", lambda: LinearGroupNorm(8192, 512), 1024, True),
    ("torch_w3_small_backward.mlir", lambda: LinearGroupNorm(64, 4), 8, True),
    ("torch_w3_small_no_affine_backward.mlir",
     lambda: LinearGroupNorm(64, 4, affine=False), 8, True),
]


def backward_export(model, batch, x_requires_grad):
    import fuser.torch as ft
    # Where the training compiler looks import_graph up.
    import fuser.torch._conversion.training as compile_module

    imported = []
    real = compile_module.import_graph

    def spy(gm):
        imported.append(real(gm))
        return imported[-1]

    compile_module.import_graph = spy
    try:
        torch.manual_seed(0)
        module = model()
        # The backward computes dL/dx when the example input requires grad.
        x = meta(batch, module.linear.in_features).requires_grad_(x_requires_grad)
        ft.compile(module, x, training=True, fallback=False)
    finally:
        compile_module.import_graph = real
    # Without the location attributes: they name this machine's paths.
    import re

    loc = re.compile(r' loc\((?:[^()"]|"[^"]*")*\)')
    return "\n".join(loc.sub("", line) for line in imported[1].splitlines()
                     if not line.startswith("#loc"))


def main(names):
    """Exports every model, or those whose file names are in `names`."""
    # Imported here: the models above must import without torch-mlir (the
    # GPU tests run them where only torch is installed).
    from torch_mlir import fx

    from fuser.torch._export.mlir import import_scans

    OUT.mkdir(parents=True, exist_ok=True)
    for name, model, inputs, dynamic in EXPORTS:
        if names and name not in names:
            continue
        module = fx.export_and_import(model, *inputs,
                                      output_type="linalg-on-tensors",
                                      dynamic_shapes=dynamic)
        # Scans as fuser.scan, as the front end imports them.
        text = import_scans(str(module))
        text = (f"// Generated by scripts/export-torch-inputs.py "
                f"(torch {torch.__version__}); do not edit.\n{text}")
        (OUT / name).write_text(text)
        print(f"wrote {OUT / name}")
    for name, model, batch, x_requires_grad in BACKWARD_EXPORTS:
        if names and name not in names:
            continue
        text = (f"// Generated by scripts/export-torch-inputs.py "
                f"(torch {torch.__version__}); do not edit.\n"
                f"{backward_export(model, batch, x_requires_grad)}\n")
        (OUT / name).write_text(text)
        print(f"wrote {OUT / name}")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
