# Planted defect: uncoalesced access (a column-major store). Each program reads one row of x
# contiguously and writes it as a column of the output, one float per 32-byte sector.
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_row_program_kernel(x_ptr, y_ptr, M, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        v = tl.load(x_ptr + row * N + cols, mask=mask)
        tl.store(y_ptr + cols * M + row, v, mask=mask)


def kernel_function(x):
    M, N = x.shape
    y = torch.empty(N, M, device=x.device, dtype=x.dtype)
    transpose_row_program_kernel[(M,)](x, y, M, N, BLOCK_N=1024)
    return y
