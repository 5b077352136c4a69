# Planted defect: tensor cores unused. A float32 GEMM whose tl.dot asks for IEEE fp32
# (input_precision="ieee"): it runs on the FMA pipes, not the tensor cores.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_fp32_ieee_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                            BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def kernel_function(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, device=a.device, dtype=torch.float32)
    matmul_fp32_ieee_kernel[(M // 128, N // 128)](a, b, c, M, N, K, BM=128, BN=128, BK=32,
                                                  num_warps=8, num_stages=3)
    return c
