# Held-out suite 3 (tests/heldout3/README.md): a float16 linear layer with bias and ReLU,
# relu(x w^T + b) for x of 8192 x 1024 and w of 1024 x 1024 (out x in), accumulated in float32
# and returned in float16 (17 GFLOP).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x, weight, bias):
        return torch.relu(F.linear(x, weight, bias))


def get_inputs():
    return [torch.randn(8192, 1024, dtype=torch.float16), torch.randn(1024, 1024, dtype=torch.float16) / 32,
            torch.randn(1024, dtype=torch.float16)]


def get_init_inputs():
    return []
