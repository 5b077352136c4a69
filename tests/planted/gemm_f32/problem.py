# Planted-defect suite (tests/planted/README.md): a float32 GEMM, 2048 x 2048 x 2048.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(2048, 2048, dtype=torch.float32), torch.randn(2048, 2048, dtype=torch.float32)]


def get_init_inputs():
    return []
