# Held-out clean kernel at the memory roof, no twin: blocks of 2048 values, 8 warps (16 bytes a
# thread), GELU as x * sigmoid(2u), one pass.
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_tanh_bf16_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    tl.store(y_ptr + offs, (x * tl.sigmoid(2.0 * u)).to(tl.bfloat16), mask=mask)


def kernel_function(x):
    n = x.numel()
    y = torch.empty_like(x)
    gelu_tanh_bf16_kernel[(triton.cdiv(n, 2048),)](x, y, n, BLOCK=2048, num_warps=8)
    return y
