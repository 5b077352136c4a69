# Clean, at the DRAM roof (no twin): x * sigmoid(x) * 1.5 + 0.25 fused in one pass over 2^26 floats.
import torch
import triton
import triton.language as tl


@triton.jit
def fused_silu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x * tl.sigmoid(x) * 1.5 + 0.25
    tl.store(y_ptr + offs, y, mask=mask)


def kernel_function(x):
    n = x.numel()
    y = torch.empty_like(x)
    fused_silu_kernel[(triton.cdiv(n, 2048),)](x, y, n, BLOCK=2048, num_warps=8)
    return y
