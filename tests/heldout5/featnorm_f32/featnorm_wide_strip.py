# Held-out defect: register spills. A program of 4 warps per strip of 32 features holds the whole
# [2048, 32] strip (65536 float32 values, 512 per thread) from the load across both column
# reductions (mean, then variance) to the store: twice the 255 registers a thread has. The fix is
# the launch (a narrower strip over more warps), no device line.
import torch
import triton
import triton.language as tl


@triton.jit
def featnorm_wide_strip_kernel(x_ptr, out_ptr, N, eps, ROWS: tl.constexpr, BLOCK_F: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_F + tl.arange(0, BLOCK_F)
    offs = tl.arange(0, ROWS)[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offs)
    mean = tl.sum(x, axis=0) / ROWS
    xc = x - mean[None, :]
    var = tl.sum(xc * xc, axis=0) / ROWS
    tl.store(out_ptr + offs, xc * tl.rsqrt(var + eps)[None, :])


def kernel_function(x):
    rows, N = x.shape
    assert N % 32 == 0
    out = torch.empty_like(x)
    featnorm_wide_strip_kernel[(N // 32,)](x, out, N, 1e-5, ROWS=rows, BLOCK_F=32, num_warps=4)
    return out
