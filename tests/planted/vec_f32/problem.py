# Planted-defect suite (tests/planted/README.md): a float32 vector of 2^26 elements (256 MiB).
# Kernels of this problem use all of it or a prefix (the strided loads read every 8th element).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return 2.0 * x[: x.numel() // 8]


def get_inputs():
    return [torch.randn(1 << 26, dtype=torch.float32)]


def get_init_inputs():
    return []
