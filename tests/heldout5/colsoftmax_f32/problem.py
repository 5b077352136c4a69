# Held-out suite 5 (tests/heldout5/README.md): softmax over the first dimension of a float32 matrix of
# 1024 x 65536 (256 MiB): each column normalized across the rows.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=0)


def get_inputs():
    return [torch.randn(1024, 65536, dtype=torch.float32) * 2]


def get_init_inputs():
    return []
