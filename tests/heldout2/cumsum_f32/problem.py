# Held-out suite 2 (tests/heldout2/README.md): running sums along the rows of a float32 matrix
# of 2^21 x 32 (256 MiB).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=1)


def get_inputs():
    return [torch.randn(1 << 21, 32, dtype=torch.float32)]


def get_init_inputs():
    return []
