# Held-out defect: uncoalesced access. A program per column loads its 1024 values down the rows:
# neighbouring lanes read values 256 KiB apart, a sector each (4 of its 32 bytes used), and store
# them the same way.
import torch
import triton
import triton.language as tl


@triton.jit
def colsoftmax_one_column_kernel(x_ptr, out_ptr, N, ROWS: tl.constexpr):
    col = tl.program_id(0)
    rows = tl.arange(0, ROWS)
    x = tl.load(x_ptr + rows * N + col)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + rows * N + col, e / tl.sum(e, axis=0))


def kernel_function(x):
    rows, N = x.shape
    out = torch.empty_like(x)
    colsoftmax_one_column_kernel[(N,)](x, out, N, ROWS=rows, num_warps=4)
    return out
