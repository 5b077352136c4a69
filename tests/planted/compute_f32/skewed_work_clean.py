# Clean twin: the same total work spread evenly over the same programs; compute-bound.
import torch
import triton
import triton.language as tl


@triton.jit
def even_programs_kernel(x_ptr, y_ptr, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    work = ITERS * 23 // 8 + pid * 0
    v = tl.load(x_ptr + offs % n)
    for _ in range(0, work):
        v = v * 0.9999 + 0.0001
    tl.store(y_ptr + offs, v)


def kernel_function(x):
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    programs = sms * 32
    y = torch.empty(programs * 64, device=x.device, dtype=x.dtype)
    even_programs_kernel[(programs,)](x, y, x.numel(), ITERS=2048, BLOCK=64, num_warps=2)
    return y
