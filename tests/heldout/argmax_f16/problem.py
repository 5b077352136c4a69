# Held-out suite (tests/heldout/README.md): the index of each row's largest value in a float16
# matrix of 65536 x 1024 (128 MiB); ties go to the first index, as torch.argmax does.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.argmax(x, dim=1)


def get_inputs():
    return [torch.randn(65536, 1024, dtype=torch.float16)]


def get_init_inputs():
    return []
