# A 3-D tensor times a matrix (KernelBench's 3D_tensor_matrix_multiplication).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


N, M, K, L = 16, 1024, 2048, 768


def get_inputs():
    return [torch.rand(N, M, K), torch.rand(K, L)]


def get_init_inputs():
    return []
