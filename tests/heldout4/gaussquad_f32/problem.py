# Held-out suite 4 (tests/heldout4/README.md): 300 x 4096 float32 decay rates a in [0.5, 4), for
# each the integral of exp(-a t^2) over [0, 1] by Simpson's rule on 128 intervals (129 nodes).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a):
        j = torch.arange(129, device=a.device)
        t2 = (j * j).to(torch.float32) / 16384.0
        w = torch.full((129,), 2.0, device=a.device)
        w[1::2] = 4.0
        w[0] = 1.0
        w[128] = 1.0
        out = []
        for first in range(0, a.shape[0], 1 << 16):
            chunk = a[first:first + (1 << 16), None]
            out.append((w * torch.exp(-chunk * t2)).sum(1) / 384.0)
        return torch.cat(out)


def get_inputs():
    return [torch.rand(300 * 4096, dtype=torch.float32) * 3.5 + 0.5]


def get_init_inputs():
    return []
