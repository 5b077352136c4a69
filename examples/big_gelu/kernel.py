import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(out_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    # tanh(z) = 2 * sigmoid(2z) - 1
    tanh = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    tl.store(out_ptr + offsets, 0.5 * x * (1.0 + tanh), mask=mask)


def kernel_function(x):
    out = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 4096),)](out, x, n, BLOCK=4096, num_warps=8)
    return out
