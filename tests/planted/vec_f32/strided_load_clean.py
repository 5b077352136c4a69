# Clean twin of strided_load.py: the same number of floats read, contiguously.
import torch
import triton
import triton.language as tl


@triton.jit
def contiguous_load_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2.0, mask=mask)


def kernel_function(x):
    n = x.numel() // 8
    y = torch.empty(n, device=x.device, dtype=x.dtype)
    contiguous_load_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y
