"""Softmax candidate 6: reads far out of bounds (illegal memory access poisons the context)."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_oob(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols + (1 << 40)).to(tl.float32)
    tl.store(out_ptr + row * out_stride + cols, x.to(out_ptr.dtype.element_ty), mask=cols < n_cols)


def kernel_function(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_oob[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=triton.next_power_of_2(cols))
    return out
