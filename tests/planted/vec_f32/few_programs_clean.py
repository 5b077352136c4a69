# Clean twin of few_programs.py: the same loop, over 2048 programs.
import torch
import triton
import triton.language as tl


@triton.jit
def many_programs_scale_kernel(x_ptr, y_ptr, n, per_program, BLOCK: tl.constexpr):
    start = tl.program_id(0) * per_program
    for off in range(start, start + per_program, BLOCK):
        offs = off + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(y_ptr + offs, x * 3.0 + 1.0, mask=mask)


def kernel_function(x):
    n = x.numel() // 8
    y = torch.empty(n, device=x.device, dtype=x.dtype)
    programs = 2048
    many_programs_scale_kernel[(programs,)](x, y, n, triton.cdiv(n, programs), BLOCK=1024)
    return y
