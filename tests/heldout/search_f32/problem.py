# Held-out suite (tests/heldout/README.md): torch.searchsorted of 2^21 float32 queries in a
# sorted array of 2^24 float32 keys (64 MiB): for each query, the first index whose key is >= it.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, keys, queries):
        return torch.searchsorted(keys, queries)


def get_inputs():
    return [torch.sort(torch.rand(1 << 24, dtype=torch.float32)).values, torch.rand(1 << 21, dtype=torch.float32)]


def get_init_inputs():
    return []
