# Held-out suite 5 (tests/heldout5/README.md): a float32 matrix product c = a b, a of 4096 x 1024 and
# b of 1024 x 4096, both row-major (34 GFLOP), float32 out; TF32 products are close enough (the
# reference is taken in float64).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return (a.double() @ b.double()).to(torch.float32)


def get_inputs():
    return [torch.randn(4096, 1024, dtype=torch.float32), torch.randn(1024, 4096, dtype=torch.float32)]


def get_init_inputs():
    return []
