"""Softmax candidate 5: broken on purpose (raises before launching anything)."""
import torch


def kernel_function(x):
    raise RuntimeError("planted failure in candidate 5")
