# Held-out defect: launch-bound. 8 programs of 4 warps (a row each) take the log-softmax of 8000
# values: a launch of a few microseconds, about what launching it costs. The fix is fewer launches
# (fuse it into the head's matmul or the loss), no device line; no clean twin, as any kernel on this
# input is as short.
import torch
import triton
import triton.language as tl


@triton.jit
def log_softmax_batch_kernel(x_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    ok = cols < C
    x = tl.load(x_ptr + row * C + cols, mask=ok, other=float("-inf"))
    shifted = x - tl.max(x, axis=0)
    lse = tl.log(tl.sum(tl.exp(shifted), axis=0))
    tl.store(out_ptr + row * C + cols, shifted - lse, mask=ok)


def kernel_function(logits):
    rows, C = logits.shape
    out = torch.empty_like(logits)
    log_softmax_batch_kernel[(rows,)](logits, out, C, BLOCK=triton.next_power_of_2(C), num_warps=4)
    return out
