# Held-out defect: too few blocks. A program per 256 bodies, each summing over all 16384 sources:
# 64 programs of 8 warps for 132 SMs, so half of the SMs idle and the others hold 8 warps each.
# The fix is the grid (split the sources over more programs), no device line.
import torch
import triton
import triton.language as tl

EPS2 = 0.01  # problem.py's softening


@triton.jit
def potential_targets_only_kernel(pos_ptr, mass_ptr, phi_ptr, N, sources_per_program, EPS2: tl.constexpr,
                                  BT: tl.constexpr, BS: tl.constexpr):
    t = tl.program_id(0) * BT + tl.arange(0, BT)
    px = tl.load(pos_ptr + t)
    py = tl.load(pos_ptr + N + t)
    pz = tl.load(pos_ptr + 2 * N + t)
    acc = tl.zeros([BT, BS], dtype=tl.float32)
    first = tl.program_id(1) * sources_per_program
    for s0 in range(first, first + sources_per_program, BS):
        s = s0 + tl.arange(0, BS)
        dx = tl.load(pos_ptr + s)[None, :] - px[:, None]
        dy = tl.load(pos_ptr + N + s)[None, :] - py[:, None]
        dz = tl.load(pos_ptr + 2 * N + s)[None, :] - pz[:, None]
        m = tl.load(mass_ptr + s)
        acc += m[None, :] * tl.rsqrt(dx * dx + dy * dy + dz * dz + EPS2)
    tl.atomic_add(phi_ptr + t, tl.sum(acc, axis=1))


def kernel_function(pos, mass):
    N = pos.shape[1]
    assert N % 256 == 0
    phi = torch.zeros(N, device=pos.device, dtype=torch.float32)
    potential_targets_only_kernel[(N // 256, 1)](pos, mass, phi, N, N, EPS2=EPS2, BT=256, BS=16, num_warps=8)
    return phi
