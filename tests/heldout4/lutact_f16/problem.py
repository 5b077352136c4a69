# Held-out suite 4 (tests/heldout4/README.md): 2^26 float16 values (128 MiB) mapped through a
# float16 table of 65536 entries indexed by their bits (GELU tabulated for every half, 128 KiB).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x, table):
        return table[x.view(torch.int16).to(torch.int32) & 0xFFFF]


def get_inputs():
    halves = torch.arange(65536, dtype=torch.int32).to(torch.int16).view(torch.float16)
    table = torch.nan_to_num(F.gelu(halves.float())).to(torch.float16)
    return [torch.randn(1 << 26, dtype=torch.float16), table]


def get_init_inputs():
    return []
