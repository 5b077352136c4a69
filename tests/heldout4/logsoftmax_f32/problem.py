# Held-out suite 4 (tests/heldout4/README.md): the log-softmax of a classifier head's float32 logits
# for a batch of 8 over 1000 classes (32 KiB): the whole problem is about what a launch costs.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, logits):
        return torch.log_softmax(logits, dim=-1)


def get_inputs():
    return [torch.randn(8, 1000, dtype=torch.float32) * 3]


def get_init_inputs():
    return []
