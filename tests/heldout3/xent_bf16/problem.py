# Held-out suite 3 (tests/heldout3/README.md): per-row cross-entropy of bfloat16 logits, 2048 rows
# over a vocabulary of 32000 (125 MiB), against int64 targets; the loss per row in float32.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, logits, target):
        return F.cross_entropy(logits.float(), target, reduction="none")


def get_inputs():
    return [torch.randn(2048, 32000, dtype=torch.bfloat16) * 2, torch.randint(0, 32000, (2048,), dtype=torch.int64)]


def get_init_inputs():
    return []
