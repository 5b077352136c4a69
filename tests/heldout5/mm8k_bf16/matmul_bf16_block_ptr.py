# Held-out clean kernel at the compute roof, no twin: 128 x 256 tiles of tl.dot on bfloat16 (tensor
# cores, fp32 sums) through block pointers, K steps of 64 in 3 pipeline stages, 8 warps, the
# programs ordered 8 tile-rows at a time so that neighbouring programs share panels in L2.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_bf16_block_ptr_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                 BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = N // BLOCK_N
    band = pid // (GROUP_M * tiles_n)
    pid_m = band * GROUP_M + pid % GROUP_M
    pid_n = (pid // GROUP_M) % tiles_n
    a_blk = tl.make_block_ptr(a_ptr, shape=(M, K), strides=(K, 1), offsets=(pid_m * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_blk = tl.make_block_ptr(b_ptr, shape=(K, N), strides=(N, 1), offsets=(0, pid_n * BLOCK_N),
                              block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        acc += tl.dot(tl.load(a_blk), tl.load(b_blk))
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(c_ptr, shape=(M, N), strides=(N, 1), offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(c_blk, acc.to(tl.bfloat16))


def kernel_function(a, b):
    M, K = a.shape
    N = b.shape[1]
    assert M % (128 * 8) == 0 and N % 256 == 0 and K % 64 == 0
    c = torch.empty(M, N, device=a.device, dtype=torch.bfloat16)
    matmul_bf16_block_ptr_kernel[((M // 128) * (N // 256),)](a, b, c, M, N, K, BLOCK_M=128, BLOCK_N=256,
                                                             BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3)
    return c
