# Held-out clean kernel at the memory roof, no twin: a program per 1024 outputs of a row, the gate
# and up halves loaded as contiguous 16-byte vectors, silu(gate) * up fused in float32, one bf16
# store: 384 MiB moved once.
import torch
import triton
import triton.language as tl


@triton.jit
def swiglu_halves_kernel(x_ptr, out_ptr, D, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    ok = cols < D
    g = tl.load(x_ptr + row * (2 * D) + cols, mask=ok, other=0.0).to(tl.float32)
    u = tl.load(x_ptr + row * (2 * D) + D + cols, mask=ok, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * D + cols, (g * tl.sigmoid(g) * u).to(tl.bfloat16), mask=ok)


def kernel_function(x):
    rows, width = x.shape
    D = width // 2
    out = torch.empty(rows, D, device=x.device, dtype=torch.bfloat16)
    swiglu_halves_kernel[(rows, triton.cdiv(D, 1024))](x, out, D, BLOCK=1024, num_warps=4)
    return out
