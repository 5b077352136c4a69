# Held-out suite 2 (tests/heldout2/README.md): a complete decision tree of depth 25 applied to
# 2^21 samples. Level d splits on feature d; node t's children are 2t + 1 (feature <= threshold)
# and 2t + 2. Features float16 and feature-major (25 x 2^21, 100 MiB), thresholds float16
# (2^25 - 1 nodes, 64 MiB), leaf values float16 (2^25, 64 MiB).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.depth = depth

    def forward(self, x, thresholds, leaves):
        node = torch.zeros(x.shape[1], dtype=torch.int64, device=x.device)
        for d in range(self.depth):
            node = 2 * node + 1 + (x[d] > thresholds[node]).long()
        return leaves[node - ((1 << self.depth) - 1)]


def get_inputs():
    depth = 25
    return [torch.randn(depth, 1 << 21, dtype=torch.float16),
            torch.randn((1 << depth) - 1, dtype=torch.float16),
            torch.randn(1 << depth, dtype=torch.float16)]


def get_init_inputs():
    return [25]
