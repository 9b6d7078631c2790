# The upper triangle of a matrix product, on KernelBench's torch.rand inputs
# (with inputs of both signs, sums of 2048 products near 0 differ by more
# than 1e-4 between any two fp32 summation orders).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.triu(a @ b)


n = 2048


def get_inputs():
    return [torch.rand(n, n), torch.rand(n, n)]


def get_init_inputs():
    return []
