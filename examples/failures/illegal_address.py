"""A candidate that reads far out of bounds: an illegal memory access poisons the CUDA context.
kprof marks it failed and continues the other candidates in a fresh process."""
import torch
import triton
import triton.language as tl


@triton.jit
def bad_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(in_ptr + offs + (1 << 40))
    tl.store(out_ptr + offs, x, mask=offs < n)


def kernel_function(x):
    out = torch.empty_like(x)
    n = x.numel()
    bad_kernel[(triton.cdiv(n, 1024),)](out, x, n, BLOCK=1024)
    return out
