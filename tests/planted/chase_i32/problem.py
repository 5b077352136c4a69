# Planted-defect suite (tests/planted/README.md): a random permutation of 2^24 int32 indices
# (64 MiB, more than the L2 holds), for chains of dependent loads and their independent twins.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, next_index):
        return next_index[next_index.long()]


def get_inputs():
    generator = torch.Generator().manual_seed(44)
    return [torch.randperm(1 << 24, generator=generator, dtype=torch.int32)]


def get_init_inputs():
    return []
