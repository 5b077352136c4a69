# Held-out suite 5 (tests/heldout5/README.md): inclusive prefix sums along the rows of a float32
# matrix of 2^17 rows of 1024 (512 MiB).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=1)


def get_inputs():
    return [torch.randn(1 << 17, 1024, dtype=torch.float32)]


def get_init_inputs():
    return []
