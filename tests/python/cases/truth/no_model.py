"""A problem without a Model: nothing to check a candidate against."""
import torch


def get_inputs():
    return [torch.randn(3)]
