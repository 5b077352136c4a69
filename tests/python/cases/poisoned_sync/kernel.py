import torch


def kernel_function(x, y):
    torch.cuda._fake_poison("CUDA error: the launch timed out and was terminated")
    raise ValueError("a plain error, but the context is gone")
