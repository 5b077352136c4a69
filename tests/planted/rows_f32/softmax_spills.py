# Planted defect: register spills. A whole row of 8192 floats per program with one warp: 256
# values per thread, live across the two reductions, more than the 255 registers a thread has.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_one_warp_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(y_ptr + row * N + cols, num / tl.sum(num, axis=0), mask=cols < N)


def kernel_function(x):
    M, N = x.shape
    y = torch.empty_like(x)
    softmax_one_warp_kernel[(M,)](x, y, N, BLOCK=triton.next_power_of_2(N), num_warps=1)
    return y
