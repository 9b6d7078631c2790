# A 4-D tensor times a matrix by einsum (KernelBench's
# 4D_tensor_matrix_multiplication).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.einsum("bijl,lk->bijk", a, b)


b, i, j, l, k = 8, 256, 512, 256, 768


def get_inputs():
    return [torch.rand(b, i, j, l), torch.rand(l, k)]


def get_init_inputs():
    return []
