# Held-out suite 4 (tests/heldout4/README.md): attention scores q k^T / sqrt(64) of 32 heads, q and
# k of 2048 x 64 bfloat16 each, summed in float32 and returned in bfloat16 (32 x 2048 x 2048,
# 256 MiB; 17 GFLOP).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, q, k):
        return (torch.matmul(q.float(), k.float().transpose(-1, -2)) * q.shape[-1] ** -0.5).to(torch.bfloat16)


def get_inputs():
    return [torch.randn(32, 2048, 64, dtype=torch.bfloat16), torch.randn(32, 2048, 64, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
