import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features, eps):
        super().__init__()
        self.features = features
        self.eps = eps


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return [64, 1e-5]
