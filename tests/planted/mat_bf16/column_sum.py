# Planted defect: uncoalesced access. One program per column walks down the rows: every bf16 it
# loads sits in its own 32-byte sector (rows are 8 KiB apart).
import torch
import triton
import triton.language as tl


@triton.jit
def column_per_program_sum_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr):
    col = tl.program_id(0)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        acc += tl.load(x_ptr + rows * N + col, mask=rows < M, other=0.0).to(tl.float32)
    tl.store(out_ptr + col, tl.sum(acc, axis=0))


def kernel_function(x):
    M, N = x.shape
    out = torch.empty(N, device=x.device, dtype=torch.float32)
    column_per_program_sum_kernel[(N,)](x, out, M, N, BLOCK_M=256)
    return out
