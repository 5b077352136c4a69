import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"])
@triton.jit
def tuned_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass


def kernel_function(x, y):
    assert x.is_cuda and y.is_cuda, "inputs must be on the GPU"
    out = torch.empty_like(x)
    tuned_add_kernel[(4,)](x, y, out, x.numel())
    return out
