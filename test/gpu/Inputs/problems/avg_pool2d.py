# 2-D average pooling, 2 x 2 windows.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool2d(2)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(16, 64, 112, 112)]


def get_init_inputs():
    return []
