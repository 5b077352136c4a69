# Held-out suite 2 (tests/heldout2/README.md): the lower triangle of a float16 matrix of
# 12288 x 12288 (288 MiB; the triangle is half of it) times a float16 vector, accumulated and
# returned in float32. Row i has i + 1 terms.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, x):
        return torch.tril(a).float() @ x.float()


def get_inputs():
    return [torch.randn(12288, 12288, dtype=torch.float16), torch.randn(12288, dtype=torch.float16)]


def get_init_inputs():
    return []
