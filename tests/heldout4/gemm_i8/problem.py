# Held-out suite 4 (tests/heldout4/README.md): an int8 matrix product a b^T, a of 8192 x 2048 and b
# given as 4096 x 2048 (n x k, so both operands are k-major), exact in int32 (137 GOP).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b_t):
        return (a.double() @ b_t.double().t()).to(torch.int32)


def get_inputs():
    return [torch.randint(-128, 128, (8192, 2048), dtype=torch.int8),
            torch.randint(-128, 128, (4096, 2048), dtype=torch.int8)]


def get_init_inputs():
    return []
