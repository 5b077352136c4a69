# Held-out suite 4 (tests/heldout4/README.md): SwiGLU of a bfloat16 16384 x 8192 projection (gate
# and up halves side by side, 256 MiB): silu(gate) * up in float32, returned in bfloat16
# (16384 x 4096).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        gate, up = x.float().chunk(2, dim=-1)
        return (F.silu(gate) * up).to(torch.bfloat16)


def get_inputs():
    return [torch.randn(16384, 8192, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
