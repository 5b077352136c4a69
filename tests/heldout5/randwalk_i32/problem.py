# Held-out suite 5 (tests/heldout5/README.md): 2^16 random walks of 128 steps on a random graph of
# 2^22 nodes in CSR form (out-degrees 1 to 16, 35.7 million int32 edges, 143 MiB), each step to the
# neighbour a uint8 draw picks (draw % degree): the node each walk ends on, int32.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, row_ptr, cols, starts, choices):
        v = starts.long()
        for s in range(choices.shape[0]):
            first = row_ptr[v].long()
            degree = row_ptr[v + 1].long() - first
            v = cols[first + choices[s].long() % degree].long()
        return v.to(torch.int32)


def get_inputs():
    nodes, walks, steps = 1 << 22, 1 << 16, 128
    degree = torch.randint(1, 17, (nodes,), dtype=torch.int64)
    row_ptr = torch.cat([torch.zeros(1, dtype=torch.int64), degree.cumsum(0)]).to(torch.int32)
    cols = torch.randint(0, nodes, (int(row_ptr[-1]),), dtype=torch.int32)
    return [row_ptr, cols, torch.randint(0, nodes, (walks,), dtype=torch.int32),
            torch.randint(0, 256, (steps, walks), dtype=torch.uint8)]


def get_init_inputs():
    return []
