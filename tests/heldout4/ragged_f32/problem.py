# Held-out suite 4 (tests/heldout4/README.md): the sums of 8192 segments of one float32 vector
# (values in [0, 1)), given by int64 offsets; segment b is floor(2^22 / (b + 1)) values long, from
# 4 Mi down to 512, 40.2 million values (153 MiB) in all.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, values, offsets):
        sums = torch.cat([values.new_zeros(1, dtype=torch.float64), values.double().cumsum(0)])
        return (sums[offsets[1:]] - sums[offsets[:-1]]).to(torch.float32)


def get_inputs():
    lengths = (1 << 22) // torch.arange(1, 8193, dtype=torch.int64)
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), lengths.cumsum(0)])
    return [torch.rand(int(offsets[-1]), dtype=torch.float32), offsets]


def get_init_inputs():
    return []
