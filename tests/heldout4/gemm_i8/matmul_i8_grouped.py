# Held-out clean kernel at the compute roof, no twin: 128 x 128 tiles of tl.dot on int8 (integer
# tensor cores, int32 sums), K steps of 128 in 4 pipeline stages, 8 warps, both operands k-major,
# the programs ordered 8 tile-rows at a time so that neighbouring programs share panels in L2.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_i8_grouped_kernel(a_ptr, bt_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                             BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = N // BLOCK_N
    in_group = GROUP_M * tiles_n
    first_m = (pid // in_group) * GROUP_M
    rows_here = tl.minimum(M // BLOCK_M - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % rows_here
    pid_n = (pid % in_group) // rows_here
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rm[:, None] * K + rk[None, :]
    b_tile = bt_ptr + rn[None, :] * K + rk[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k0 in range(0, K, BLOCK_K):
        acc += tl.dot(tl.load(a_tile + k0), tl.load(b_tile + k0), out_dtype=tl.int32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def kernel_function(a, b_t):
    M, K = a.shape
    N = b_t.shape[0]
    assert M % 128 == 0 and N % 128 == 0 and K % 128 == 0
    c = torch.empty(M, N, device=a.device, dtype=torch.int32)
    matmul_i8_grouped_kernel[((M // 128) * (N // 128),)](a, b_t, c, M, N, K, BLOCK_M=128, BLOCK_N=128,
                                                         BLOCK_K=128, GROUP_M=8, num_warps=8, num_stages=4)
    return c
