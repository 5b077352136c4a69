# Held-out defect: launch-bound. 384 programs of 4 warps, a token each, normalize 295k values: a
# launch of a few microseconds, about what launching it costs. The fix is fewer launches (fuse the
# norm into the neighbouring matmul or residual add, or batch the sequences), no device line; no
# clean twin, as any kernel on this input is as short.
import torch
import triton
import triton.language as tl


@triton.jit
def token_layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    ok = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=ok, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(ok, x - mean, 0.0)
    inv = tl.rsqrt(tl.sum(xc * xc, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=ok, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=ok, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * N + cols, (xc * inv * w + b).to(tl.float16), mask=ok)


def kernel_function(x, weight, bias):
    rows, N = x.shape
    out = torch.empty_like(x)
    token_layernorm_kernel[(rows,)](x, weight, bias, out, N, 1e-5, BLOCK=triton.next_power_of_2(N), num_warps=4)
    return out
