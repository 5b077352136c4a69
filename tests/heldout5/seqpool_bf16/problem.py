# Held-out suite 5 (tests/heldout5/README.md): mean pooling of 4096 packed bfloat16 sequences of
# 128-wide token embeddings, int64 offsets, sorted longest first as a length-bucketing loader
# leaves them: sequence s has 8 + floor(4096 (1 - s / 4096)^8) tokens (4104 down to 8, 1.9 million
# in all, 463 MiB); the float32 mean of each sequence's tokens.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, tokens, offsets):
        lengths = offsets[1:] - offsets[:-1]
        seq_of = torch.repeat_interleave(torch.arange(lengths.numel(), device=tokens.device), lengths)
        sums = torch.zeros(lengths.numel(), tokens.shape[1], device=tokens.device, dtype=torch.float32)
        sums.index_add_(0, seq_of, tokens.float())
        return sums / lengths[:, None].float()


def get_inputs():
    s = torch.arange(4096, dtype=torch.float64)
    lengths = (8 + torch.floor(4096 * (1 - s / 4096) ** 8)).to(torch.int64)
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), lengths.cumsum(0)])
    return [torch.randn(int(offsets[-1]), 128, dtype=torch.bfloat16), offsets]


def get_init_inputs():
    return []
