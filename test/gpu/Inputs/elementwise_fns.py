"""Elementwise functions for fuser.torch.elementwise (the KernelInterface
API): scripts/build-torch-artifacts.py compiles them here into packages in
.artifacts/torch/elementwise/ (FORMS: which constants); the GPU test
test/gpu/test_torch_kernel_interface.py loads those packages (torch and
fuser's runtime only) and checks them against these same functions run
eagerly, in float32 and float64.
"""

import torch


def leaky_relu(x, slope):
    """The users' KernelInterface example: forward(x, slope)."""
    return torch.where(x > 0, x, x * slope)


def swish(x, beta):
    return x * torch.sigmoid(beta * x)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 *
                                       (x + 0.044715 * x * x * x)))


def scaled_mix(x, y, alpha):
    """Two tensor arguments: a gradient for each."""
    return x * y + alpha * torch.exp(-x * x)


# name -> (function, the constants compiled (one form each), tensors,
# dynamic). A dynamic form serves every shape; the static one is for its
# number of elements only (STATIC_NUMEL).
STATIC_NUMEL = 7 * 13
FORMS = {
    "leaky_relu": (leaky_relu, [(0.01,), (0.1,), (0.2,)], 1, True),
    "leaky_relu_static": (leaky_relu, [(0.1,)], 1, False),
    "swish": (swish, [(1.0,), (1.702,)], 1, True),
    "gelu_tanh": (gelu_tanh, [()], 1, True),
    "scaled_mix": (scaled_mix, [(0.5,)], 2, True),
}
