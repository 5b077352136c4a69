# Held-out suite 2 (tests/heldout2/README.md): GELU in its tanh form over 2^26 bfloat16 values
# (128 MiB), computed in float32.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.gelu(x.float(), approximate="tanh").to(torch.bfloat16)


def get_inputs():
    return [torch.randn(1 << 26, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
