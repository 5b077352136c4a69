# Held-out suite 2 (tests/heldout2/README.md): the rows of a float32 matrix of 1024 x 24576
# (96 MiB, 96 KiB a row) scaled to unit Euclidean length.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.normalize(x, p=2.0, dim=1)


def get_inputs():
    return [torch.randn(1024, 24576, dtype=torch.float32)]


def get_init_inputs():
    return []
