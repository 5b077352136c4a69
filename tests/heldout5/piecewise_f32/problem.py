# Held-out suite 5 (tests/heldout5/README.md): 2^25 float32 values in [0, 4) (128 MiB), each through
# the piece of its integer part r, on t = x - r, coefficients c of 4 x 96 float32: piece 0 the
# degree-95 polynomial c[0] (Horner), piece 1 the Chebyshev series of c[1, :48] in 2t - 1
# (Clenshaw), piece 2 exp of the degree-79 polynomial c[2, :80], piece 3 p(t) / (1 + (t q(t))^2)
# with p = c[3, :48] and q = c[3, 48:].
import torch
import torch.nn as nn


def horner(c, t):
    y = torch.full_like(t, float(c[-1]))
    for k in range(len(c) - 2, -1, -1):
        y = y * t + c[k]
    return y


class Model(nn.Module):
    def forward(self, x, coef):
        c = coef.double().cpu()
        r = x.long().clamp_max(3)
        t = x - r.float()
        u = 2 * t - 1
        b1, b2 = torch.zeros_like(t), torch.zeros_like(t)
        for k in range(47, 0, -1):
            b1, b2 = 2 * u * b1 + (float(c[1, k]) - b2), b1
        pieces = [horner(c[0], t), u * b1 + (float(c[1, 0]) - b2), torch.exp(horner(c[2, :80], t)),
                  horner(c[3, :48], t) / (1 + (t * horner(c[3, 48:], t)) ** 2)]
        return torch.stack(pieces).gather(0, r[None]).squeeze(0)


def get_inputs():
    return [torch.rand(1 << 25, dtype=torch.float32) * 4,
            torch.randn(4, 96, dtype=torch.float32) / torch.arange(1, 97, dtype=torch.float32)]


def get_init_inputs():
    return []
