# Planted defect: memory latency. Each lane follows a chain of 32 dependent loads through a random
# permutation of 64 MiB: every load waits for the one before it (issue 44's unseen dependent-load
# chain).
import torch
import triton
import triton.language as tl


@triton.jit
def pointer_chase_steps_kernel(next_ptr, out_ptr, n, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = offs
    for _ in range(STEPS):
        p = tl.load(next_ptr + p, mask=mask, other=0)
    tl.store(out_ptr + offs, p, mask=mask)


def kernel_function(next_index):
    n = next_index.numel() // 32
    out = torch.empty(n, device=next_index.device, dtype=next_index.dtype)
    pointer_chase_steps_kernel[(triton.cdiv(n, 128),)](next_index, out, n, STEPS=32, BLOCK=128, num_warps=4)
    return out
