# Held-out suite (tests/heldout/README.md): a polynomial of degree 255, sum of x^k / (k + 1),
# evaluated by Horner's rule on 2^22 float32 values in [0, 1) (16 MiB): compute-bound.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, degree):
        super().__init__()
        self.degree = degree

    def forward(self, x):
        y = torch.zeros_like(x)
        for k in range(self.degree - 1, -1, -1):
            y = y * x + 1.0 / (k + 1)
        return y


def get_inputs():
    return [torch.rand(1 << 22, dtype=torch.float32)]


def get_init_inputs():
    return [256]
