# Held-out suite 2 (tests/heldout2/README.md): a bfloat16 matrix product, 4096 x 4096 times
# 4096 x 4096, accumulated in float32 and returned in bfloat16 (137 GFLOP).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(4096, 4096, dtype=torch.bfloat16), torch.randn(4096, 4096, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
