# Planted defect: tail effect. Programs of 16 warps, 4 per SM, and one program more than a wave:
# the second wave runs one program on one SM while the others idle. The fix is the grid, no device
# line.
import torch
import triton
import triton.language as tl


@triton.jit
def tail_programs_kernel(x_ptr, y_ptr, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs % n)
    w = v * 0.5
    for _ in range(ITERS):
        v = v * 0.9999 + 0.0001
        w = w * 1.0001 - 0.0001
    tl.store(y_ptr + offs, v + w)


def kernel_function(x):
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    programs = sms * 4 + 1
    y = torch.empty(programs * 512, device=x.device, dtype=x.dtype)
    tail_programs_kernel[(programs,)](x, y, x.numel(), ITERS=4096, BLOCK=512, num_warps=16)
    return y
