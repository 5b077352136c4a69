# Held-out defect: launch-bound. 32 programs (a head each) rotate 4096 pairs of bf16 values: a
# launch of a few microseconds, about what launching it costs. The fix is fewer launches (fuse it
# into its neighbours), no device line; no clean twin, as any kernel on this input is as short.
import torch
import triton
import triton.language as tl


@triton.jit
def rope_one_token_kernel(q_ptr, cos_ptr, sin_ptr, out_ptr, HALF: tl.constexpr):
    base = tl.program_id(0) * 2 * HALF
    i = tl.arange(0, HALF)
    q1 = tl.load(q_ptr + base + i).to(tl.float32)
    q2 = tl.load(q_ptr + base + HALF + i).to(tl.float32)
    c = tl.load(cos_ptr + i)
    s = tl.load(sin_ptr + i)
    tl.store(out_ptr + base + i, (q1 * c - q2 * s).to(tl.bfloat16))
    tl.store(out_ptr + base + HALF + i, (q2 * c + q1 * s).to(tl.bfloat16))


def kernel_function(q, cos, sin):
    heads, dim = q.shape
    out = torch.empty_like(q)
    rope_one_token_kernel[(heads,)](q, cos, sin, out, HALF=dim // 2, num_warps=1)
    return out
