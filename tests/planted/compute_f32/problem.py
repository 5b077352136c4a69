# Planted-defect suite (tests/planted/README.md): a float32 vector of 2^22 elements (16 MiB) for
# compute-heavy CUDA kernels (divergence, shared memory, register spills).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.sin(x)


def get_inputs():
    return [torch.rand(1 << 22, dtype=torch.float32)]


def get_init_inputs():
    return []
