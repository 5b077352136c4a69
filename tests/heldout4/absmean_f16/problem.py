# Held-out suite 4 (tests/heldout4/README.md): the mean absolute value of each of 64 float16 rows of
# 2^21 values (256 MiB), in float32.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.float().abs().mean(dim=1)


def get_inputs():
    return [torch.randn(64, 1 << 21, dtype=torch.float16)]


def get_init_inputs():
    return []
