# Held-out suite (tests/heldout/README.md): relu(x + bias) on a float16 batch of 64 x 256 (32 KiB):
# the whole problem is smaller than one launch's cost.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, bias):
        return torch.relu(x + bias)


def get_inputs():
    return [torch.randn(64, 256, dtype=torch.float16), torch.randn(256, dtype=torch.float16)]


def get_init_inputs():
    return []
