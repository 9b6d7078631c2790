# Linear, then cross-entropy against class targets (mean over the batch).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_features, classes):
        super().__init__()
        self.fc = nn.Linear(in_features, classes)

    def forward(self, x, target):
        return F.cross_entropy(self.fc(x), target)


batch_size = 512
in_features = 4096
classes = 1000


def get_inputs():
    return [torch.randn(batch_size, in_features),
            torch.randint(0, classes, (batch_size,))]


def get_init_inputs():
    return [in_features, classes]
