# Clean twin of seqpool_fixed_share.py: a program per sequence (4096), the longest first, so the
# hardware deals them out as SMs free up and the longest (1 MiB) finishes early.
import torch
import triton
import triton.language as tl


@triton.jit
def seqpool_one_program_kernel(x_ptr, off_ptr, out_ptr, H: tl.constexpr, BLOCK_T: tl.constexpr):
    s = tl.program_id(0)
    cols = tl.arange(0, H)
    start = tl.load(off_ptr + s)
    end = tl.load(off_ptr + s + 1)
    acc = tl.zeros([BLOCK_T, H], dtype=tl.float32)
    for t0 in range(start, end, BLOCK_T):
        rows = t0 + tl.arange(0, BLOCK_T)
        acc += tl.load(x_ptr + rows[:, None] * H + cols[None, :], mask=rows[:, None] < end, other=0.0).to(tl.float32)
    tl.store(out_ptr + s * H + cols, tl.sum(acc, axis=0) / (end - start).to(tl.float32))


def kernel_function(tokens, offsets):
    S = offsets.numel() - 1
    H = tokens.shape[1]
    out = torch.empty(S, H, device=tokens.device, dtype=torch.float32)
    seqpool_one_program_kernel[(S,)](tokens, offsets, out, H=H, BLOCK_T=32, num_warps=4)
    return out
