# A @ B with rows that are not 16-byte multiples apart (K = 2949, N = 5921;
# KernelBench's Matmul_with_irregular_shapes).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


M, K, N = 8205, 2949, 5921


def get_inputs():
    return [torch.rand(M, K), torch.rand(K, N)]


def get_init_inputs():
    return []
