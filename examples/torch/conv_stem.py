# A model with ops fuser leaves to PyTorch: a ResNet-style stem (a 7 x 7
# convolution, BatchNorm, ReLU) and a pooled Linear head, in the users'
# format. `python -m fuser.torch.kernelbench` writes a partitioned ModelNew:
# the convolution and BatchNorm's batch statistics (training mode, as the
# module is built) run in cuDNN; the ReLU, the pooling and the head in one
# graph of fuser's kernels.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels, features, classes):
        super().__init__()
        self.conv = nn.Conv2d(channels, features, 7, stride=2, padding=3,
                              bias=False)
        self.bn = nn.BatchNorm2d(features)
        self.head = nn.Linear(features, classes)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        return self.head(y.mean((2, 3)))


batch_size = 32
channels = 3
features = 64
classes = 1000


def get_inputs():
    return [torch.rand(batch_size, channels, 224, 224)]


def get_init_inputs():
    return [channels, features, classes]
