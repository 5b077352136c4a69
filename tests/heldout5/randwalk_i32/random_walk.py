# Held-out defect: memory latency. A lane per walk (2^16 lanes, 16 warps an SM): each step loads the
# node's row offsets at an address the last step's load gave, then the neighbour at an address those
# give, two dependent trips to memory a step, 128 steps in a row. No clean twin: the walk is the
# chain.
import torch
import triton
import triton.language as tl


@triton.jit
def random_walk_kernel(row_ptr, col_ptr, start_ptr, choice_ptr, out_ptr, W, steps, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < W
    v = tl.load(start_ptr + offs, mask=ok, other=0)
    for s in range(steps):
        first = tl.load(row_ptr + v, mask=ok, other=0)
        degree = tl.load(row_ptr + v + 1, mask=ok, other=1) - first
        pick = tl.load(choice_ptr + s * W + offs, mask=ok, other=0).to(tl.int32)
        v = tl.load(col_ptr + first + pick % degree, mask=ok, other=0)
    tl.store(out_ptr + offs, v, mask=ok)


def kernel_function(row_ptr, cols, starts, choices):
    steps, W = choices.shape
    out = torch.empty_like(starts)
    random_walk_kernel[(triton.cdiv(W, 128),)](row_ptr, cols, starts, choices, out, W, steps, BLOCK=128, num_warps=4)
    return out
