# Held-out defect: atomic contention. Every element is added with its own atomic into one of
# the 64 floats of the result, so every program's atomics queue on the same 8 sectors.
import torch
import triton
import triton.language as tl

GROUPS = 8  # problem.py's get_init_inputs()


@triton.jit
def segment_sum_atomic_kernel(x_ptr, labels_ptr, out_ptr, n_rows, D: tl.constexpr, BLOCK_R: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, D)
    ok = rows < n_rows
    group = tl.load(labels_ptr + rows, mask=ok, other=0)
    v = tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=ok[:, None], other=0.0)
    tl.atomic_add(out_ptr + group[:, None] * D + cols[None, :], v, mask=ok[:, None])


def kernel_function(x, labels, groups=8):  # groups: get_init_inputs()[0], passed after the inputs
    n_rows, D = x.shape
    out = torch.zeros(groups, D, device=x.device, dtype=x.dtype)
    segment_sum_atomic_kernel[(triton.cdiv(n_rows, 128),)](x, labels, out, n_rows, D=D, BLOCK_R=128)
    return out
