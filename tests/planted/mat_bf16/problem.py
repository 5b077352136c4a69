# Planted-defect suite (tests/planted/README.md): a row-major bfloat16 matrix of 16384 x 4096
# (128 MiB): column sums, and strided reads of the flat matrix.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.float().sum(dim=0)


def get_inputs():
    return [torch.randn(16384, 4096, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
