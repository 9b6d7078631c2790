# 2-D max pooling, 3 x 3 windows at stride 2.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(16, 64, 112, 112)]


def get_init_inputs():
    return []
