# Planted defect: uncoalesced access. Each program reads every 8th float, so each 32-byte sector
# moved carries 4 useful bytes.
import torch
import triton
import triton.language as tl


@triton.jit
def strided_load_kernel(x_ptr, y_ptr, n, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * STRIDE, mask=mask)
    tl.store(y_ptr + offs, x * 2.0, mask=mask)


def kernel_function(x):
    n = x.numel() // 8
    y = torch.empty(n, device=x.device, dtype=x.dtype)
    strided_load_kernel[(triton.cdiv(n, 1024),)](x, y, n, STRIDE=8, BLOCK=1024)
    return y
