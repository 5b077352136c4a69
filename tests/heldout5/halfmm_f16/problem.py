# Held-out suite 5 (tests/heldout5/README.md): a float16 matrix product c = a b, a of 4096 x 2048 and
# b of 2048 x 4096, both row-major (69 GFLOP), float16 out.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(4096, 2048, dtype=torch.float16) * 0.5, torch.randn(2048, 4096, dtype=torch.float16) * 0.5]


def get_init_inputs():
    return []
