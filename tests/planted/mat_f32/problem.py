# Planted-defect suite (tests/planted/README.md): transpose a row-major float32 matrix of
# 8192 x 4096 (128 MiB).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.t().contiguous()


def get_inputs():
    return [torch.randn(8192, 4096, dtype=torch.float32)]


def get_init_inputs():
    return []
