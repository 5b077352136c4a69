import torch
import torch.nn as nn


class Model(nn.Module):
    """y = A @ x: a bf16 matrix-vector product over a 1 GiB matrix (memory bound)."""

    def forward(self, a, x):
        return a @ x


def get_inputs():
    return [torch.randn(32768, 16384, dtype=torch.bfloat16), torch.randn(16384, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
