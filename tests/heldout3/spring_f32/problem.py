# Held-out suite 3 (tests/heldout3/README.md): 2^22 undamped springs x'' = -k x (float32 positions
# and velocities from a standard normal, stiffnesses in [1, 4)), integrated by symplectic Euler,
# 512 steps of 0.01: the positions at the end.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, steps, dt):
        super().__init__()
        self.steps = steps
        self.dt = dt

    def forward(self, x, v, k):
        for _ in range(self.steps):
            v = v - k * x * self.dt
            x = x + v * self.dt
        return x


def get_inputs():
    n = 1 << 22
    return [torch.randn(n, dtype=torch.float32), torch.randn(n, dtype=torch.float32),
            torch.rand(n, dtype=torch.float32) * 3 + 1]


def get_init_inputs():
    return [512, 0.01]
