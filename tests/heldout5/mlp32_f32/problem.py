# Held-out suite 5 (tests/heldout5/README.md): a two-layer perceptron of 32 units, y = W2 tanh(W1 x +
# b1) + b2, on 2^21 float32 vectors of 32 (256 MiB in, 256 MiB out); w of 2 x 32 x 32 (out x in),
# b of 2 x 32.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, w, b):
        h = torch.tanh(x @ w[0].t() + b[0])
        return h @ w[1].t() + b[1]


def get_inputs():
    return [torch.randn(1 << 21, 32, dtype=torch.float32), torch.randn(2, 32, 32, dtype=torch.float32) / 32 ** 0.5,
            torch.randn(2, 32, dtype=torch.float32) * 0.1]


def get_init_inputs():
    return []
