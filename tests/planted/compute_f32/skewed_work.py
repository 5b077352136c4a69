# Planted defect: load imbalance. One wave of 2-warp programs (32 per SM) where one in 8 loops 16
# times longer on one dependent chain: the SMs run on with their few heavy programs once the others
# are done. The fix is the partition.
import torch
import triton
import triton.language as tl


@triton.jit
def skewed_programs_kernel(x_ptr, y_ptr, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    work = ITERS + (pid % 8 == 0).to(tl.int32) * (ITERS * 15)
    v = tl.load(x_ptr + offs % n)
    for _ in range(0, work):
        v = v * 0.9999 + 0.0001
    tl.store(y_ptr + offs, v)


def kernel_function(x):
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    programs = sms * 32
    y = torch.empty(programs * 64, device=x.device, dtype=x.dtype)
    skewed_programs_kernel[(programs,)](x, y, x.numel(), ITERS=2048, BLOCK=64, num_warps=2)
    return y
