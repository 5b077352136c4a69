# Clean twin of layernorm_spills.py: the same row per program with 16 warps (32 values per
# thread).
import torch
import triton
import triton.language as tl


@triton.jit
def layernorm_rows_kernel(x_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
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
    layernorm_rows_kernel[(M,)](x, y, N, 1e-5, BLOCK=triton.next_power_of_2(N), num_warps=16)
    return y
