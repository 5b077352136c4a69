# Clean twin of matmul_broadcast_sum.py: the same product through tl.dot with TF32 inputs (tensor
# cores), 128 x 128 tiles, K steps of 32 in 4 pipeline stages, 8 warps, tl.swizzle2d program order.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_tf32_dot_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = N // BLOCK_N
    pid_m, pid_n = tl.swizzle2d(pid // tiles_n, pid % tiles_n, M // BLOCK_M, tiles_n, GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rm[:, None] * K + rk[None, :]
    b_tile = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        acc = tl.dot(tl.load(a_tile), tl.load(b_tile), acc, input_precision="tf32")
        a_tile += BLOCK_K
        b_tile += BLOCK_K * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def kernel_function(a, b):
    M, K = a.shape
    N = b.shape[1]
    assert M % 128 == 0 and N % 128 == 0 and K % 32 == 0
    c = torch.empty(M, N, device=a.device, dtype=torch.float32)
    matmul_tf32_dot_kernel[((M // 128) * (N // 128),)](a, b, c, M, N, K, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32,
                                                       GROUP_M=8, num_warps=8, num_stages=4)
    return c
