import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(out_ptr, x_ptr, w_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        total += x * x
    rms = tl.rsqrt(tl.sum(total, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        y = (x * rms).to(tl.float16) * w
        tl.store(out_ptr + row * stride + cols, y, mask=mask)


def kernel_function(x, features, eps):
    rows, cols = x.shape
    weight = torch.ones(features, device=x.device, dtype=x.dtype)
    out = torch.empty_like(x)
    rmsnorm_kernel[(rows,)](out, x, weight, cols, x.stride(0), eps, BLOCK=2048, num_warps=8)
    return out
