"""Small PyTorch models for the fuser.torch GPU tests.

scripts/build-torch-artifacts.py compiles them here (torch-mlir, fuser's
compiler) into packages in .artifacts/torch/; test/gpu/test_torch_frontend.py
loads those packages on the GPU machine (torch and fuser's runtime only) and
compares them with these same models run eagerly.
"""

from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "torch"


class LinearLeaky(nn.Module):
    """W2's shape, small: leaky_relu(linear(x) * 2, 0.1)."""

    def __init__(self, n_in=256, n_out=512, slope=0.1):
        super().__init__()
        self.lin = nn.Linear(n_in, n_out)
        self.slope = slope

    def forward(self, x):
        return F.leaky_relu(self.lin(x) * 2.0, self.slope)


class LinearGroupNorm(nn.Module):
    """W3's shape, small: GroupNorm (groups of 16) after a linear, then
    leaky_relu and a doubling."""

    def __init__(self, n_in=256, n_out=512, groups=32):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.gn = nn.GroupNorm(groups, n_out, eps=1e-5)

    def forward(self, x):
        y = F.leaky_relu(self.gn(self.fc(x)), 0.01)
        return y + y


class TwoOutputs(nn.Module):
    """A buffer as a kernel argument, and a tuple of results."""

    def __init__(self, n_in=128, n_out=256):
        super().__init__()
        self.lin = nn.Linear(n_in, n_out)
        self.register_buffer("scale", torch.linspace(-2.0, 2.0, n_out))

    def forward(self, x):
        y = self.lin(x)
        return torch.relu(y) * self.scale, y * 0.5


class MLP(nn.Module):
    """Two linears with a residual-style scale in between."""

    def __init__(self, n_in=128, hidden=256, n_out=64):
        super().__init__()
        self.up = nn.Linear(n_in, hidden)
        self.down = nn.Linear(hidden, n_out)

    def forward(self, x):
        h = torch.relu(self.up(x))
        return self.down(h * 1.5 + h)


class LinearLogSumExp(nn.Module):
    """logsumexp over the features after a linear: its decomposition fails
    torch-mlir's lowering when exported on `meta` tensors (fuser.torch then
    exports on fake CPU ones)."""

    def __init__(self, n_in=256, n_out=128):
        super().__init__()
        self.lin = nn.Linear(n_in, n_out)

    def forward(self, x):
        return torch.logsumexp(self.lin(x), dim=1)


class TriuMatmul(nn.Module):
    """torch.triu of a product (the same `meta` export failure)."""

    def __init__(self, n=64):
        super().__init__()
        self.lin = nn.Linear(n, n, bias=False)

    def forward(self, x):
        return torch.triu(x @ self.lin.weight)


class LinearBatchNorm(nn.Module):
    """BatchNorm in training mode (as users' harnesses leave it) after a
    linear: batch statistics, and running statistics updated in place,
    which the compiled module writes back."""

    def __init__(self, n_in=256, n_out=128):
        super().__init__()
        self.lin = nn.Linear(n_in, n_out)
        self.bn = nn.BatchNorm1d(n_out)

    def forward(self, x):
        return torch.relu(self.bn(self.lin(x)))


class Activation(nn.Module):
    """One activation: a single op for eager, one kernel for fuser."""

    def __init__(self, kind="leaky_relu"):
        super().__init__()
        self.kind = kind

    def forward(self, x):
        if self.kind == "leaky_relu":
            return F.leaky_relu(x, 0.01)
        if self.kind == "gelu":
            return F.gelu(x)
        return torch.sigmoid(x)


class GroupNormOnly(nn.Module):
    """A GroupNorm alone (eager: one op)."""

    def __init__(self, groups=8, channels=512):
        super().__init__()
        self.gn = nn.GroupNorm(groups, channels)

    def forward(self, x):
        return self.gn(x)


class LinearSoftmax(nn.Module):
    """A linear, a GELU and a softmax over the features: several kernels
    for fuser, four ops for eager."""

    def __init__(self, n_in=1024, n_out=512):
        super().__init__()
        self.lin = nn.Linear(n_in, n_out)

    def forward(self, x):
        return torch.softmax(F.gelu(self.lin(x)) * 0.5, dim=1)


class SwiGLU(nn.Module):
    """LLaMA's feed-forward in one projection: chunk(2) takes both halves
    of its output (two slices), SiLU gates one by the other."""

    def __init__(self, dim=256, hidden=512):
        super().__init__()
        self.up = nn.Linear(dim, 2 * hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        a, b = self.up(x).chunk(2, dim=-1)
        return self.down(F.silu(a) * b)


class QKVAttention(nn.Module):
    """timm's ViT attention: one qkv projection unbound into q, k and v
    (slices of a permuted tensor), scaled dot-product attention, and the
    output projection."""

    def __init__(self, dim=128, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        y = F.scaled_dot_product_attention(q, k, v)
        return self.proj(y.transpose(1, 2).reshape(b, n, c))


class RotaryCat(nn.Module):
    """Rotary embeddings as LLaMA writes them: rotate_half slices the
    features in two halves and concatenates them swapped, one negated."""

    def __init__(self, dim=64, positions=33):
        super().__init__()
        angle = torch.arange(positions)[:, None] * torch.arange(dim // 2) / dim
        angle = torch.cat([angle, angle], dim=-1)
        self.register_buffer("cos", angle.cos())
        self.register_buffer("sin", angle.sin())

    def forward(self, x):
        half = x.shape[-1] // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * self.cos + rotated * self.sin


class PadLinear(nn.Module):
    """A constant pad of the features before a linear layer."""

    def __init__(self, n_in=125, n_out=64):
        super().__init__()
        self.lin = nn.Linear(n_in + 3, n_out)

    def forward(self, x):
        return self.lin(F.pad(x, (1, 2), value=0.5))


# Small models, where the host decides the time (bench/host_overhead.py):
# name -> (model class, constructor args, input shape, the ops eager runs).
HOST = {
    "leaky_relu_16x16384": (Activation, ("leaky_relu",), (16, 16384), 1),
    "gelu_16x16384": (Activation, ("gelu",), (16, 16384), 1),
    "sigmoid_16x16384": (Activation, ("sigmoid",), (16, 16384), 1),
    "linear_x2_leaky_128x1024x512": (LinearLeaky, (1024, 512, 0.01),
                                     (128, 1024), 3),
    "group_norm_128x512": (GroupNormOnly, (8, 512), (128, 512), 1),
    "linear_gelu_softmax_128x1024x512": (LinearSoftmax, (1024, 512),
                                         (128, 1024), 4),
}


class DropoutMLP(nn.Module):
    """Two Linear layers with a dropout between (training mode): the
    dynamo backend splits the graph at the dropout."""

    def __init__(self, n_in=40, hidden=32, n_out=24, p=0.3):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.fc2(F.relu(self.drop(self.fc1(x))))


# Models whose dynamo graphs fuser splits (fuser/torch/_lowering/graph_split.py):
# name -> (model class, constructor args, input shape).
SPLIT = {
    "dropout_mlp": (DropoutMLP, (40, 32, 24, 0.3), (7, 40)),
    "dropout_mlp_large": (DropoutMLP, (4096, 4096, 4096, 0.1), (1024, 4096)),
}


def build_split(name, seed=0, device="cpu"):
    """The model of SPLIT[name], its weights drawn after manual_seed."""
    cls, args, _ = SPLIT[name]
    torch.manual_seed(seed)
    return cls(*args).to(device)


def build_host(name, seed=0, device="cpu"):
    """The model of HOST[name], its weights drawn after manual_seed."""
    cls, args, _, _ = HOST[name]
    torch.manual_seed(seed)
    return cls(*args).to(device)


# name -> (model class, constructor args, example input shape, dynamic).
# The real batch is the example's dim 0; dynamic packages are also checked
# at batch 1 and 7.
PACKAGES = {
    "linear_leaky_static": (LinearLeaky, (), (64, 256), None),
    "linear_leaky_dynamic": (LinearLeaky, (), (64, 256), "batch"),
    "linear_group_norm_dynamic": (LinearGroupNorm, (), (64, 256), "batch"),
    "two_outputs_dynamic": (TwoOutputs, (), (64, 128), "batch"),
    "mlp_dynamic": (MLP, (), (64, 128), "batch"),
    "linear_logsumexp_static": (LinearLogSumExp, (), (64, 256), None),
    "triu_matmul_static": (TriuMatmul, (), (64, 64), None),
    "linear_batchnorm_static": (LinearBatchNorm, (), (64, 256), None),
    # Slices, concatenations and pads (gather kernels).
    "swiglu_static": (SwiGLU, (), (64, 256), None),
    "qkv_attention_static": (QKVAttention, (), (8, 33, 128), None),
    "rotary_cat_static": (RotaryCat, (), (8, 33, 64), None),
    "pad_linear_static": (PadLinear, (), (64, 125), None),
}

# A package saved with its weights (save(weights=True)), loaded without a
# module: the weights of LinearLeaky() built after torch.manual_seed(WEIGHTS_SEED).
WEIGHTS_PACKAGE = "linear_leaky_weights.zip"
WEIGHTS_SEED = 1234

# The seed models' problem files (examples/torch) turned into ModelNew files.
SEEDS = ("w1", "w2", "w3")
# Problem files (examples/torch) with ops left to PyTorch: partitioned
# ModelNew files.
PARTITIONED_SEEDS = ("conv_stem",)
# Problem files of the forms users bring beyond the seeds (Inputs/problems:
# losses after a Linear, masked products, BatchNorm and dropout in training
# mode, scans, pooling), turned into ModelNew files under problems/.
PROBLEMS_DIR = Path(__file__).resolve().parent / "problems"
PROBLEMS = tuple(sorted(p.stem for p in PROBLEMS_DIR.glob("*.py")))


def build(name, seed=0, device="cpu"):
    """The model of PACKAGES[name], its weights drawn after manual_seed."""
    cls, args, _, _ = PACKAGES[name]
    torch.manual_seed(seed)
    return cls(*args).to(device)


def problem(seed):
    """The model source a training package names (index.json's "seed"):
    examples/torch/<seed>.py as a module, "torch_models.<Class>" as an
    object whose Model is that class here, or "model_blocks.<name>" as one
    whose Model() builds that block of a real model (model_blocks.py; its
    weights from the generator as the caller seeded it)."""
    if seed.startswith("torch_models."):
        return type("Problem", (), {"Model": globals()[seed.split(".", 1)[1]]})
    if seed.startswith("model_blocks."):
        import model_blocks
        name = seed.split(".", 1)[1]
        return type("Problem", (), {"Model": staticmethod(
            lambda: model_blocks.build(name, seed=None))})
    from fuser.torch.kernelbench import load_problem
    return load_problem(EXAMPLES / f"{seed}.py")
