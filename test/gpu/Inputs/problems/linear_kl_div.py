# Linear, log_softmax, then KL divergence to target distributions.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_features, classes):
        super().__init__()
        self.fc = nn.Linear(in_features, classes)

    def forward(self, x, target):
        return F.kl_div(F.log_softmax(self.fc(x), dim=1), target,
                        reduction="batchmean")


batch_size = 512
in_features = 4096
classes = 1000


def get_inputs():
    return [torch.randn(batch_size, in_features),
            torch.softmax(torch.randn(batch_size, classes), dim=1)]


def get_init_inputs():
    return [in_features, classes]
