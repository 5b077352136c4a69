# Held-out suite 4 (tests/heldout4/README.md): 2048 float32 signals of 16384 samples (128 MiB)
# correlated with one 65-tap float32 filter, zero-padded by 32 on each side: out[i] =
# sum_k w[k] x[i + k - 32] (4.4 GFLOP).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x, w):
        return F.conv1d(x[:, None, :], w[None, None, :], padding=32)[:, 0, :]


def get_inputs():
    return [torch.randn(2048, 16384, dtype=torch.float32), torch.randn(65, dtype=torch.float32) / 8]


def get_init_inputs():
    return []
