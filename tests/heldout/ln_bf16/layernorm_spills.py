# Held-out defect: register spills. A whole row of 16384 values per program with 2 warps: 256
# float32 values per thread, live from the load across both reductions, more than the 255
# registers a thread has. The fix is num_warps (the launch), no device line.
import torch
import triton
import triton.language as tl


@triton.jit
def layernorm_two_warps_kernel(x_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / N
    y = diff * tl.rsqrt(var + eps)
    tl.store(y_ptr + row * N + cols, y.to(tl.bfloat16), mask=mask)


def kernel_function(x):
    M, N = x.shape
    y = torch.empty_like(x)
    layernorm_two_warps_kernel[(M,)](x, y, N, 1e-5, BLOCK=triton.next_power_of_2(N), num_warps=2)
    return y
