# Held-out defect: tensor cores unused. Each program computes a 32 x 32 tile of c as the sum over k
# of a [32, 8, 32] tile of broadcast products, tl.sum(a[:, :, None] * b[None, :, :], axis=1), in
# float32 on the FMA pipe, where tl.dot would put the same products on the tensor cores (TF32).
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_broadcast_sum_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc += tl.sum(a[:, :, None] * b[None, :, :], axis=1)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def kernel_function(a, b):
    M, K = a.shape
    N = b.shape[1]
    assert M % 32 == 0 and N % 32 == 0 and K % 8 == 0
    c = torch.empty(M, N, device=a.device, dtype=torch.float32)
    matmul_broadcast_sum_kernel[(M // 32, N // 32)](a, b, c, M, N, K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=8,
                                                    num_warps=4)
    return c
