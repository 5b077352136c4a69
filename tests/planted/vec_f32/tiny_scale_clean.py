# Clean twin: the same body over 4096 such vectors (2^24 floats) in one launch, at the DRAM roof.
import torch
import triton
import triton.language as tl


@triton.jit
def batched_scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 3.0 + 1.0, mask=mask)


def kernel_function(x):
    n = 1 << 24
    y = torch.empty(n, device=x.device, dtype=x.dtype)
    batched_scale_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y
