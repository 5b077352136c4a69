# Held-out suite 4 (tests/heldout4/README.md): 2^16 walks of 256 hops each along a linked list of
# 2^23 nodes (one random cycle through 64 MiB), a node being {next, weight} as two int32 (weights in
# [0, 1000)); each walk sums the weights of the 256 nodes it meets from its head: int32 sums.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, hops):
        super().__init__()
        self.hops = hops

    def forward(self, nodes, heads):
        p = heads.long()
        acc = torch.zeros_like(heads)
        for _ in range(self.hops):
            acc = acc + nodes[p, 1]
            p = nodes[p, 0].long()
        return acc


def get_inputs():
    n = 1 << 23
    order = torch.randperm(n)
    nodes = torch.empty(n, 2, dtype=torch.int32)
    nodes[order, 0] = torch.roll(order, -1).to(torch.int32)  # one cycle through every node
    nodes[:, 1] = torch.randint(0, 1000, (n,), dtype=torch.int32)
    heads = torch.randint(0, n, (1 << 16,), dtype=torch.int32)
    return [nodes, heads]


def get_init_inputs():
    return [256]
