# Held-out suite 3 (tests/heldout3/README.md): rotary position embedding of one token's bfloat16
# queries, 32 heads of 128 (8 KiB), the pairs (i, i + 64) of each head rotated by float32 angles:
# the whole problem is about what a launch costs.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, q, cos, sin):
        q1, q2 = q.float().chunk(2, dim=-1)
        return torch.cat([q1 * cos - q2 * sin, q2 * cos + q1 * sin], dim=-1).to(torch.bfloat16)


def get_inputs():
    angles = 1234.0 * torch.pow(10000.0, -torch.arange(64, dtype=torch.float32) / 64)
    return [torch.randn(32, 128, dtype=torch.bfloat16), torch.cos(angles), torch.sin(angles)]


def get_init_inputs():
    return []
