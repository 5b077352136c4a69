# Held-out suite 4 (tests/heldout4/README.md): 2^22 float32 values in [0.5, 8), each with a kind
# (uint8, 0 or 1 at random): kind 0 gets its square root by 32 Heron steps y = (y + v / y) / 2,
# kind 1 its cube root by 32 Newton steps y = (2 y + v / y^2) / 3, both from y = v.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, iters):
        super().__init__()
        self.iters = iters

    def forward(self, x, kind):
        square = x.clone()
        cube = x.clone()
        for _ in range(self.iters):
            square = 0.5 * (square + x / square)
            cube = (2.0 * cube + x / (cube * cube)) / 3.0
        return torch.where(kind != 0, cube, square)


def get_inputs():
    n = 1 << 22
    return [torch.rand(n, dtype=torch.float32) * 7.5 + 0.5, torch.randint(0, 2, (n,), dtype=torch.uint8)]


def get_init_inputs():
    return [32]
