"""A problem whose reference returns known values under the fake torch (which does no arithmetic):
Model()(x) is [1, 2, 3], and it runs one 8x8x8 matmul (1024 FLOPs) on the way."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        torch.matmul(torch.zeros(8, 8), torch.zeros(8, 8))
        return torch.tensor([1.0, 2.0, 3.0])


def get_inputs():
    return [torch.randn(3)]


def get_init_inputs():
    return []
