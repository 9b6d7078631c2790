# Linear, then BatchNorm1d in training mode (batch statistics, running
# statistics updated), as a harness that never calls .eval() runs it.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features)

    def forward(self, x):
        return torch.relu(self.bn(self.fc(x)))


batch_size = 256
in_features = 2048
out_features = 1024


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
