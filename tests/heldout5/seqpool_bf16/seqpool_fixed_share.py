# Held-out defect: load imbalance. Two programs an SM, each taking an equal count of consecutive
# sequences (16) and looping over each one's tokens: the sequences come longest first, so the first
# programs' shares hold 60k tokens each against 7k on average, and they stream on alone while most
# SMs idle. The fix is the partition (a program per sequence, or equal token counts), no device line.
import torch
import triton
import triton.language as tl


@triton.jit
def seqpool_fixed_share_kernel(x_ptr, off_ptr, out_ptr, S, per, H: tl.constexpr, BLOCK_T: tl.constexpr):
    first = tl.program_id(0) * per
    cols = tl.arange(0, H)
    for s in range(first, tl.minimum(first + per, S)):
        start = tl.load(off_ptr + s)
        end = tl.load(off_ptr + s + 1)
        acc = tl.zeros([BLOCK_T, H], dtype=tl.float32)
        for t0 in range(start, end, BLOCK_T):
            rows = t0 + tl.arange(0, BLOCK_T)
            tile = tl.load(x_ptr + rows[:, None] * H + cols[None, :], mask=rows[:, None] < end, other=0.0)
            acc += tile.to(tl.float32)
        tl.store(out_ptr + s * H + cols, tl.sum(acc, axis=0) / (end - start).to(tl.float32))


def kernel_function(tokens, offsets):
    S = offsets.numel() - 1
    H = tokens.shape[1]
    programs = 2 * torch.cuda.get_device_properties(tokens.device).multi_processor_count
    per = triton.cdiv(S, programs)
    out = torch.empty(S, H, device=tokens.device, dtype=torch.float32)
    seqpool_fixed_share_kernel[(triton.cdiv(S, per),)](tokens, offsets, out, S, per, H=H, BLOCK_T=32, num_warps=4)
    return out
