import torch
import triton
import triton.language as tl


@triton.jit
def matvec_kernel(y_ptr, a_ptr, x_ptr, n_rows, n_cols, a_stride,
                  BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)
        col_mask = cols < n_cols
        a = tl.load(a_ptr + rows[:, None] * a_stride + cols[None, :],
                    mask=row_mask[:, None] & col_mask[None, :], other=0.0)
        x = tl.load(x_ptr + cols, mask=col_mask, other=0.0)
        acc += tl.sum(a.to(tl.float32) * x.to(tl.float32)[None, :], axis=1)
    tl.store(y_ptr + rows, acc.to(y_ptr.dtype.element_ty), mask=row_mask)


def kernel_function(a, x):
    rows, cols = a.shape
    y = torch.empty(rows, device=a.device, dtype=a.dtype)
    grid = (triton.cdiv(rows, 16),)
    matvec_kernel[grid](y, a, x, rows, cols, a.stride(0), BLOCK_M=16, BLOCK_K=256, num_warps=4)
    return y
