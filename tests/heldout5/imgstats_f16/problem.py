# Held-out suite 5 (tests/heldout5/README.md): the sum and the sum of squares of each of 8 float16
# images of 4096 x 8192 (512 MiB in all), in float32, as [images, 2].
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        sums = []
        for image in x:
            f = image.float()
            sums.append(torch.stack([f.sum(), (f * f).sum()]))
        return torch.stack(sums)


def get_inputs():
    return [torch.randn(8, 4096, 8192, dtype=torch.float16)]


def get_init_inputs():
    return []
