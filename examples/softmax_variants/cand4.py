"""Softmax candidate 4: a two-pass kernel over 1024-column tiles (reads the row twice)."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_two_pass(out_ptr, in_ptr, in_stride, out_stride, n_cols, TILE: tl.constexpr):
    row = tl.program_id(0)
    m = -float("inf")
    s = 0.0
    for start in range(0, n_cols, TILE):
        cols = start + tl.arange(0, TILE)
        x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, TILE):
        cols = start + tl.arange(0, TILE)
        x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - m) / s
        tl.store(out_ptr + row * out_stride + cols, y.to(out_ptr.dtype.element_ty), mask=cols < n_cols)


def kernel_function(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_two_pass[(rows,)](out, x, x.stride(0), out.stride(0), cols, TILE=1024, num_warps=4)
    return out
