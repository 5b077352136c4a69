# Held-out suite 2 (tests/heldout2/README.md): RMS norm of a bfloat16 batch of 8 x 2048 with a
# bfloat16 weight (32 KiB in all): the whole problem is about what a launch costs.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, weight):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * weight.float()).to(torch.bfloat16)


def get_inputs():
    return [torch.randn(8, 2048, dtype=torch.bfloat16), torch.rand(2048, dtype=torch.bfloat16) + 0.5]


def get_init_inputs():
    return []
