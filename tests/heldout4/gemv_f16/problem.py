# Held-out suite 4 (tests/heldout4/README.md): a float16 matrix-vector product y = W x, W of
# 131072 x 1024 (256 MiB) and x of 1024, summed and returned in float32.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, w, x):
        return torch.mv(w.float(), x.float())


def get_inputs():
    return [torch.randn(131072, 1024, dtype=torch.float16), torch.randn(1024, dtype=torch.float16)]


def get_init_inputs():
    return []
