# Planted defect: launch-bound. 4 programs scale 4096 floats: a launch of about 2.7 us, as long
# as launching it (issue 44's unseen launch-bound kernel).
import torch
import triton
import triton.language as tl


@triton.jit
def tiny_scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 3.0 + 1.0, mask=mask)


def kernel_function(x):
    n = 4096
    y = torch.empty(n, device=x.device, dtype=x.dtype)
    tiny_scale_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y
