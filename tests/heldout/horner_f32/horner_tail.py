# Held-out defect: tail effect. The values are split evenly over one program more than a wave
# (programs of 16 warps, 4 per SM): the last program, with as much work as any, runs alone on
# one SM after the first wave. The fix is the grid, no device line.
import torch
import triton
import triton.language as tl

DEGREE = 256  # problem.py's get_init_inputs()


@triton.jit
def horner_wave_plus_one_kernel(x_ptr, y_ptr, n, chunk, DEGREE: tl.constexpr, BLOCK: tl.constexpr):
    start = tl.program_id(0) * chunk
    for base in range(start, start + chunk, BLOCK):
        offs = base + tl.arange(0, BLOCK)
        mask = (offs < start + chunk) & (offs < n)
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        y = tl.zeros([BLOCK], dtype=tl.float32)
        for i in range(0, DEGREE):
            y = y * x + 1.0 / (DEGREE - i)
        tl.store(y_ptr + offs, y, mask=mask)


def kernel_function(x, degree=256):  # degree: get_init_inputs()[0], passed after the inputs
    n = x.numel()
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    programs = sms * 4 + 1
    chunk = triton.cdiv(n, programs)
    y = torch.empty_like(x)
    horner_wave_plus_one_kernel[(programs,)](x, y, n, chunk, DEGREE=degree, BLOCK=512, num_warps=16)
    return y
