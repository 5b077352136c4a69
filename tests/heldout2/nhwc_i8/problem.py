# Held-out suite 2 (tests/heldout2/README.md): int8 activations in channels-last layout (64 images
# of 64 x 64, 128 channels: 32 MiB) dequantized with a float32 scale per channel into float16
# channels-first (64 MiB).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, scale):
        return (x.permute(0, 3, 1, 2).float() * scale[None, :, None, None]).to(torch.float16)


def get_inputs():
    return [torch.randint(-128, 128, (64, 64, 64, 128), dtype=torch.int8), torch.rand(128, dtype=torch.float32) / 64]


def get_init_inputs():
    return []
