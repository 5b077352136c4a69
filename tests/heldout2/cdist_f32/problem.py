# Held-out suite 2 (tests/heldout2/README.md): L1 (Manhattan) distances between the rows of two
# float32 matrices of 4096 x 128, a 4096 x 4096 result (64 MiB): sums of |a - b|, no products.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.cdist(a, b, p=1.0)


def get_inputs():
    return [torch.randn(4096, 128, dtype=torch.float32), torch.randn(4096, 128, dtype=torch.float32)]


def get_init_inputs():
    return []
