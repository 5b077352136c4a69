# Held-out defect: too few blocks. A program of 8 warps per row, each streaming its 4 MiB row alone:
# 64 programs for 132 SMs, so half the SMs idle and the others hold 8 warps each. The fix is the
# grid (split the rows over more programs), no device line.
import torch
import triton
import triton.language as tl


@triton.jit
def absmean_row_program_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    base = x_ptr + tl.program_id(0).to(tl.int64) * N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.abs(tl.load(base + cols, mask=cols < N, other=0.0).to(tl.float32))
    tl.store(out_ptr + tl.program_id(0), tl.sum(acc, axis=0) / N)


def kernel_function(x):
    rows, N = x.shape
    out = torch.empty(rows, device=x.device, dtype=torch.float32)
    absmean_row_program_kernel[(rows,)](x, out, N, BLOCK=4096, num_warps=8)
    return out
