# Planted-defect suite (tests/planted/README.md): a 4-bin histogram (bin = value & 3) of 2^23
# int32 values (32 MiB).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.bincount(x & 3, minlength=4).to(torch.int32)


def get_inputs():
    return [torch.randint(0, 1 << 30, (1 << 23,), dtype=torch.int32)]


def get_init_inputs():
    return []
