# Held-out defect: uncoalesced access. A lane per output in channels-first order: consecutive
# lanes read pixels 128 bytes apart in the channels-last input, one useful byte per 32-byte sector.
import torch
import triton
import triton.language as tl


@triton.jit
def nchw_dequant_gather_kernel(x_ptr, scale_ptr, y_ptr, total, C: tl.constexpr, HW: tl.constexpr,
                               BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    p = offs % HW
    c = (offs // HW) % C
    n = offs // (HW * C)
    q = tl.load(x_ptr + (n * HW + p) * C + c, mask=mask, other=0)
    s = tl.load(scale_ptr + c, mask=mask, other=0.0)
    tl.store(y_ptr + offs, (q.to(tl.float32) * s).to(tl.float16), mask=mask)


def kernel_function(x, scale):
    N, H, W, C = x.shape
    y = torch.empty(N, C, H, W, device=x.device, dtype=torch.float16)
    total = y.numel()
    nchw_dequant_gather_kernel[(triton.cdiv(total, 1024),)](x, scale, y, total, C=C, HW=H * W, BLOCK=1024,
                                                            num_warps=4)
    return y
