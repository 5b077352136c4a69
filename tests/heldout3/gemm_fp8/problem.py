# Held-out suite 3 (tests/heldout3/README.md): an fp8 (e4m3) matrix product a b^T, a of 4096 x 4096
# and b given as 4096 x 4096 (n x k, so both operands are k-major), accumulated in float32 and
# returned in bfloat16 (137 GFLOP).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b_t):
        return (a.float() @ b_t.float().t()).to(torch.bfloat16)


def get_inputs():
    return [torch.randn(4096, 4096).to(torch.float8_e4m3fn), torch.randn(4096, 4096).to(torch.float8_e4m3fn)]


def get_init_inputs():
    return []
