# Held-out defect: launch-bound. 64 programs add a bias and clamp 16384 halves: a launch of a few
# microseconds, about what launching it costs. The fix is fewer launches (fuse it into its
# neighbours), no device line; no clean twin, as any kernel on this input is as short.
import torch
import triton
import triton.language as tl


@triton.jit
def bias_relu_rows_kernel(x_ptr, bias_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    b = tl.load(bias_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * N + cols, tl.maximum(x + b, 0.0), mask=mask)


def kernel_function(x, bias):
    M, N = x.shape
    y = torch.empty_like(x)
    bias_relu_rows_kernel[(M,)](x, bias, y, N, BLOCK=triton.next_power_of_2(N), num_warps=2)
    return y
