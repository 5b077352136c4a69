# Held-out clean kernel at the memory roof, no twin: two rows per program as one [2, N] tile,
# 16 warps, one read and one write of each element.
import torch
import triton
import triton.language as tl


@triton.jit
def layernorm_row_pairs_kernel(x_ptr, y_ptr, M, N, eps, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    ptrs = rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + ptrs, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=1) / N
    diff = tl.where(mask, x - mean[:, None], 0.0)
    var = tl.sum(diff * diff, axis=1) / N
    y = diff * tl.rsqrt(var + eps)[:, None]
    tl.store(y_ptr + ptrs, y.to(tl.bfloat16), mask=mask)


def kernel_function(x):
    M, N = x.shape
    y = torch.empty_like(x)
    layernorm_row_pairs_kernel[(triton.cdiv(M, 2),)](x, y, M, N, 1e-5, ROWS=2, BLOCK=triton.next_power_of_2(N),
                                                      num_warps=16)
    return y
