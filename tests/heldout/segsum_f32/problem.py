# Held-out suite (tests/heldout/README.md): segment sums. Rows of a float32 matrix of 2^22 x 8
# (128 MiB) summed by their label (int64, 8 groups) into an 8 x 8 result.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, x, labels):
        out = torch.zeros(self.groups, x.shape[1], device=x.device, dtype=x.dtype)
        return out.index_add_(0, labels, x)


def get_inputs():
    return [torch.randn(1 << 22, 8, dtype=torch.float32), torch.randint(0, 8, (1 << 22,), dtype=torch.int64)]


def get_init_inputs():
    return [8]
