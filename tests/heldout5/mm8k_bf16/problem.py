# Held-out suite 5 (tests/heldout5/README.md): a bfloat16 matrix product c = a b, a of 8192 x 4096 and
# b of 4096 x 8192, both row-major (550 GFLOP), bfloat16 out.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(8192, 4096, dtype=torch.bfloat16), torch.randn(4096, 8192, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
