# Held-out suite 3 (tests/heldout3/README.md): two damped Fourier sums of 2^22 float32 angles each
# (uniform in [-pi, pi)), stacked: out[0] = sum_{k=1..64} 0.97^k sin(k a), out[1] =
# sum_{k=0..63} 0.95^k cos(k b).
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        sines = torch.zeros_like(a)
        cosines = torch.zeros_like(b)
        for k in range(64):
            sines = sines + 0.97 ** (k + 1) * torch.sin((k + 1) * a)
            cosines = cosines + 0.95 ** k * torch.cos(k * b)
        return torch.stack([sines, cosines])


def get_inputs():
    n = 1 << 22
    return [(torch.rand(n, dtype=torch.float32) * 2 - 1) * math.pi, (torch.rand(n, dtype=torch.float32) * 2 - 1) * math.pi]


def get_init_inputs():
    return []
