# Clean twin of segment_sum_atomic.py: each program sums its 4096 rows per group in registers
# and adds its 8 x 8 partial with one atomic per output element (64 per program).
import torch
import triton
import triton.language as tl

GROUPS = 8  # problem.py's get_init_inputs()


@triton.jit
def segment_sum_partials_kernel(x_ptr, labels_ptr, out_ptr, n_rows, ROWS: tl.constexpr, G: tl.constexpr,
                                D: tl.constexpr, BLOCK_R: tl.constexpr):
    start = tl.program_id(0) * ROWS
    cols = tl.arange(0, D)
    groups = tl.arange(0, G)
    acc = tl.zeros([G, D], dtype=tl.float32)
    for r in range(start, start + ROWS, BLOCK_R):
        rows = r + tl.arange(0, BLOCK_R)
        ok = rows < n_rows
        group = tl.load(labels_ptr + rows, mask=ok, other=-1)
        v = tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=ok[:, None], other=0.0)
        hit = group[:, None, None] == groups[None, :, None]
        acc += tl.sum(tl.where(hit, v[:, None, :], 0.0), axis=0)
    tl.atomic_add(out_ptr + groups[:, None] * D + cols[None, :], acc)


def kernel_function(x, labels, groups=8):  # groups: get_init_inputs()[0], passed after the inputs
    n_rows, D = x.shape
    out = torch.zeros(groups, D, device=x.device, dtype=x.dtype)
    segment_sum_partials_kernel[(triton.cdiv(n_rows, 4096),)](x, labels, out, n_rows, ROWS=4096, G=groups, D=D,
                                                              BLOCK_R=64)
    return out
