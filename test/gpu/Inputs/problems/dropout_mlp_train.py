# Two Linear layers with a dropout between, in training mode.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, hidden, out_features, p):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(hidden, out_features)

    def forward(self, x):
        return self.fc2(torch.relu(self.drop(self.fc1(x))))


batch_size = 1024
in_features = 2048
hidden = 2048
out_features = 1024


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, hidden, out_features, 0.1]
