# Planted-defect suite (tests/planted/README.md): a float16 GEMM, (4096 x 1024) @ (1024 x 2048),
# accumulated in float32.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return (a.float() @ b.float()).to(torch.float16)


def get_inputs():
    return [torch.randn(4096, 1024, dtype=torch.float16), torch.randn(1024, 2048, dtype=torch.float16)]


def get_init_inputs():
    return []
