# Held-out suite (tests/heldout/README.md): layer norm (no affine) over the rows of a bfloat16
# matrix of 2048 x 16384 (64 MiB), computed in float32 and returned in bfloat16.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.layer_norm(x.float(), (x.shape[-1],), eps=1e-5).to(torch.bfloat16)


def get_inputs():
    return [torch.randn(2048, 16384, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
