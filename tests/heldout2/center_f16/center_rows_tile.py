# Held-out clean kernel at the memory roof, no twin: four rows per program as one [4, 4096]
# tile, 8 warps; one read and one write of each element.
import torch
import triton
import triton.language as tl


@triton.jit
def center_rows_tile_kernel(x_ptr, y_ptr, M, N: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, N)
    ptrs = rows[:, None] * N + cols[None, :]
    ok = rows[:, None] < M
    x = tl.load(x_ptr + ptrs, mask=ok, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=1) / N
    tl.store(y_ptr + ptrs, (x - mean[:, None]).to(tl.float16), mask=ok)


def kernel_function(x):
    M, N = x.shape
    y = torch.empty_like(x)
    center_rows_tile_kernel[(triton.cdiv(M, 4),)](x, y, M, N=N, ROWS=4, num_warps=8)
    return y
