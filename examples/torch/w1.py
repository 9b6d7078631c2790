# W1, the first seed workload, as KernelBench's level1/20_LeakyReLU.py
# writes it: a problem file in the users' format (Model, get_inputs,
# get_init_inputs). `python -m fuser.torch.kernelbench w1.py -o w1_new.py`
# turns it into a ModelNew file.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a LeakyReLU activation.
    """

    def __init__(self, negative_slope: float = 0.01):
        super(Model, self).__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope)


batch_size = 4096
dim = 393216


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []  # No special initialization inputs needed
