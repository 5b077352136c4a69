# Held-out clean kernel at the compute roof, no twin: 128 x 256 tiles of tl.dot (tensor cores),
# K steps of 64 in 3 pipeline stages, 8 warps, programs grouped 8 tile-rows at a time so that
# neighbouring programs share their A and B panels in L2.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_bf16_grouped_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                               BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_m = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))


def kernel_function(a, b):
    M, K = a.shape
    N = b.shape[1]
    assert M % 128 == 0 and N % 256 == 0 and K % 64 == 0
    c = torch.empty(M, N, device=a.device, dtype=torch.bfloat16)
    grid = ((M // 128) * (N // 256),)
    matmul_bf16_grouped_kernel[grid](a, b, c, M, N, K, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8,
                                     num_warps=8, num_stages=3)
    return c
