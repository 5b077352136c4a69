# Clean twin of column_sum.py: each program sums a 512-row slab of 128 adjacent columns with
# row-contiguous loads; torch adds the 32 partial rows.
import torch
import triton
import triton.language as tl


@triton.jit
def column_tile_sum_kernel(x_ptr, part_ptr, M, N, ROWS: tl.constexpr, BLOCK_M: tl.constexpr,
                           BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    first = tl.program_id(1) * ROWS
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(first, first + ROWS, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        acc += tl.load(x_ptr + rows[:, None] * N + cols[None, :]).to(tl.float32)
    tl.store(part_ptr + tl.program_id(1) * N + cols, tl.sum(acc, axis=0))


def kernel_function(x):
    M, N = x.shape
    rows = 512
    part = torch.empty(M // rows, N, device=x.device, dtype=torch.float32)
    column_tile_sum_kernel[(N // 128, M // rows)](x, part, M, N, ROWS=rows, BLOCK_M=32, BLOCK_N=128)
    return part.sum(dim=0)
