# Held-out suite (tests/heldout/README.md): 4096 small float16 matrix products, each
# (64 x 64) @ (64 x 64), the left operands given transposed (at[b] is A[b]^T, 32 MiB each
# operand), accumulated in float32, returned in float16.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, at, b):
        return torch.bmm(at.transpose(1, 2).float(), b.float()).to(torch.float16)


def get_inputs():
    return [torch.randn(4096, 64, 64, dtype=torch.float16), torch.randn(4096, 64, 64, dtype=torch.float16)]


def get_init_inputs():
    return []
