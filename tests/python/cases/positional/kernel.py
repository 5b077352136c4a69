import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass


def kernel_function(x, y):
    assert x.is_cuda and y.is_cuda, "inputs must be on the GPU"
    assert x.shape == (1024,) and y.shape == (1024,), "unexpected shapes"
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
    return out
