# Clean twin: as many loads per lane, independent of each other and coalesced.
import torch
import triton
import triton.language as tl


@triton.jit
def independent_steps_kernel(next_ptr, out_ptr, n, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for s in range(STEPS):
        acc += tl.load(next_ptr + offs + s * n, mask=mask, other=0)
    tl.store(out_ptr + offs, acc, mask=mask)


def kernel_function(next_index):
    n = next_index.numel() // 32
    out = torch.empty(n, device=next_index.device, dtype=next_index.dtype)
    independent_steps_kernel[(triton.cdiv(n, 128),)](next_index, out, n, STEPS=32, BLOCK=128, num_warps=4)
    return out
