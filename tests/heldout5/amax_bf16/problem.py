# Held-out suite 5 (tests/heldout5/README.md): the largest magnitude of 2^27 bfloat16 values
# (256 MiB), the statistic a per-tensor fp8 scale is taken from, returned as a float32 scalar.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.abs().amax().float()


def get_inputs():
    return [torch.randn(1 << 27, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
