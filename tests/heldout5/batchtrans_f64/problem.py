# Held-out suite 5 (tests/heldout5/README.md): the last two dimensions of a float64 batch of 4
# matrices of 4096 x 4096 swapped (512 MiB in, 512 MiB out).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.transpose(1, 2).contiguous()


def get_inputs():
    return [torch.randn(4, 4096, 4096, dtype=torch.float64)]


def get_init_inputs():
    return []
