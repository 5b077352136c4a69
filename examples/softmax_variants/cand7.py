"""Softmax candidate 7: PyTorch's own softmax (a non-Triton baseline)."""
import torch


def kernel_function(x):
    return torch.softmax(x, dim=-1)
