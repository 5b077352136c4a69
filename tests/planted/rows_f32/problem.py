# Planted-defect suite (tests/planted/README.md): row softmax of a float32 matrix of 4096 x 8192
# (128 MiB), one row per program.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(4096, 8192, dtype=torch.float32)]


def get_init_inputs():
    return []
