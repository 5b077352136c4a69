"""A KernelBench-style problem whose inputs are float32, for a kernel that only takes bfloat16
(like KernelAgent's own mat-vec example): run it with --cast auto (the Python default), which
reads the dtype from kernel_function's source."""
import torch

N = 1 << 24


class Model(torch.nn.Module):
    def forward(self, x, y):
        return x + y


def get_inputs():
    return [torch.randn(N), torch.randn(N)]


def get_init_inputs():
    return []
