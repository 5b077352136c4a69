# Held-out suite 5 (tests/heldout5/README.md): the bit-reversal permutation of 2^15 float32 rows of
# 4096 values (512 MiB), the reordering ahead of an in-place radix-2 FFT: y[:, i] = x[:, rev12(i)].
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        i = torch.arange(4096, device=x.device)
        rev = torch.zeros_like(i)
        for b in range(12):
            rev |= ((i >> b) & 1) << (11 - b)
        return x[:, rev]


def get_inputs():
    return [torch.randn(1 << 15, 4096, dtype=torch.float32)]


def get_init_inputs():
    return []
