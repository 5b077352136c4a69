# Clean twin of transpose_column_store.py: 64x64 tiles, transposed in registers (tl.trans), so
# both the load and the store are row-contiguous.
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_tiled_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    v = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(y_ptr + rn[:, None] * M + rm[None, :], tl.trans(v))


def kernel_function(x):
    M, N = x.shape
    y = torch.empty(N, M, device=x.device, dtype=x.dtype)
    transpose_tiled_kernel[(M // 64, N // 64)](x, y, M, N, BM=64, BN=64)
    return y
