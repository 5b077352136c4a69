# Held-out defect: register spills. A whole row of 16384 float32 values per program of one warp:
# 512 values per thread, live from the load across the row's max to the rounding, twice the 255
# registers a thread has. The fix is num_warps (the launch), no device line.
import torch
import triton
import triton.language as tl


@triton.jit
def fake_quant_one_warp_kernel(x_ptr, out_ptr, N, inv_levels, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    ok = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=ok, other=0.0)
    scale = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-12) * inv_levels
    q = tl.fdiv(x, scale, ieee_rounding=True)
    q = (q + 12582912.0) - 12582912.0  # 1.5 * 2^23: rounds |q| <= 127 to the nearest, half to even
    tl.store(out_ptr + row * N + cols, (q * scale).to(tl.bfloat16), mask=ok)


def kernel_function(x):
    rows, N = x.shape
    out = torch.empty(rows, N, device=x.device, dtype=torch.bfloat16)
    fake_quant_one_warp_kernel[(rows,)](x, out, N, 1.0 / 127.0, BLOCK=triton.next_power_of_2(N), num_warps=1)
    return out
