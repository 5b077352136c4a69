import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, kernel_size, stride=2, padding=1)

    def forward(self, x):
        return self.conv1(x)


def get_inputs():
    return [torch.randn(4, 3, 32, 32)]


def get_init_inputs():
    return [3, 8, 3]
