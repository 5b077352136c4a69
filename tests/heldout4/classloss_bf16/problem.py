# Held-out suite 4 (tests/heldout4/README.md): 2^24 bfloat16 per-sample losses in [0, 1) summed per
# class, the classes (uint8 labels) in [0, 10): 10 float32 sums.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.classes = classes

    def forward(self, loss, labels):
        sums = torch.zeros(self.classes, dtype=torch.float32, device=loss.device)
        return sums.index_add_(0, labels.long(), loss.float())


def get_inputs():
    n = 1 << 24
    return [torch.rand(n).to(torch.bfloat16), torch.randint(0, 10, (n,), dtype=torch.uint8)]


def get_init_inputs():
    return [10]
