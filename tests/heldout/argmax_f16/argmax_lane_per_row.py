# Held-out defect: uncoalesced access. Each lane owns a row and walks its columns, so a warp's
# load touches 32 rows 2 KiB apart: 2 useful bytes in each 32-byte sector.
import torch
import triton
import triton.language as tl


@triton.jit
def argmax_lane_per_row_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    ok = rows < M
    best = tl.full([BLOCK_M], float("-inf"), tl.float32)
    best_col = tl.zeros([BLOCK_M], dtype=tl.int32)
    for c in range(0, N):
        v = tl.load(x_ptr + rows * N + c, mask=ok, other=float("-inf")).to(tl.float32)
        better = v > best
        best = tl.where(better, v, best)
        best_col = tl.where(better, c, best_col)
    tl.store(out_ptr + rows, best_col.to(tl.int64), mask=ok)


def kernel_function(x):
    M, N = x.shape
    out = torch.empty(M, device=x.device, dtype=torch.int64)
    argmax_lane_per_row_kernel[(triton.cdiv(M, 32),)](x, out, M, N, BLOCK_M=32, num_warps=1)
    return out
