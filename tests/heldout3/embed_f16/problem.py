# Held-out suite 3 (tests/heldout3/README.md): an embedding lookup, 2^18 int64 token ids into a
# float16 table of 50257 x 256 (25 MiB): a 128 MiB float16 output of 2^18 x 256.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, ids, table):
        return F.embedding(ids, table)


def get_inputs():
    return [torch.randint(0, 50257, (1 << 18,), dtype=torch.int64), torch.randn(50257, 256, dtype=torch.float16)]


def get_init_inputs():
    return []
