# Clean twin of atomic_sum.py: each program sums its block, then adds it with one atomic.
import torch
import triton
import triton.language as tl


@triton.jit
def block_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def kernel_function(x):
    n = x.numel() // 16
    out = torch.zeros(1, device=x.device, dtype=torch.float32)
    block_sum_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
