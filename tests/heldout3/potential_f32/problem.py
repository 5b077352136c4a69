# Held-out suite 3 (tests/heldout3/README.md): the softened gravitational potential of 16384
# bodies on each of them, phi_i = sum_j m_j / sqrt(|p_i - p_j|^2 + 0.01) (float32; the
# coordinates as the rows of a 3 x 16384 matrix, masses in [0.5, 1.5)): 2^28 pairs.
import torch
import torch.nn as nn

EPS2 = 0.01


class Model(nn.Module):
    def forward(self, pos, mass):
        p = pos.t()
        phi = []
        for first in range(0, p.shape[0], 1024):
            d = p[first:first + 1024, None, :] - p[None, :, :]
            phi.append((mass[None, :] * torch.rsqrt((d * d).sum(-1) + EPS2)).sum(1))
        return torch.cat(phi)


def get_inputs():
    n = 16384
    return [torch.randn(3, n, dtype=torch.float32), torch.rand(n, dtype=torch.float32) + 0.5]


def get_init_inputs():
    return []
