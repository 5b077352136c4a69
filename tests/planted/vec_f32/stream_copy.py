# Clean, at the DRAM roof (no twin): a streaming copy of 2^26 floats, about 90% of DRAM peak
# (issue 44's unseen streaming copy).
import torch
import triton
import triton.language as tl


@triton.jit
def stream_copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def kernel_function(x):
    n = x.numel()
    y = torch.empty_like(x)
    stream_copy_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
    return y
