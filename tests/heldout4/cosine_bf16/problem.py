# Held-out suite 4 (tests/heldout4/README.md): the cosine similarity of the rows of two bfloat16
# matrices of 2^18 x 256 (128 MiB each), in float32 (eps 1e-8).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, a, b):
        return F.cosine_similarity(a.float(), b.float(), dim=1, eps=1e-8)


def get_inputs():
    return [torch.randn(1 << 18, 256, dtype=torch.bfloat16), torch.randn(1 << 18, 256, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
