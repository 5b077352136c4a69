# Held-out defect: atomic contention. Every loss is added to its class's float32 sum by a global
# atomic of its own: 2^24 atomics, all on the 10 sums (40 bytes, one L2 line), so they queue on the
# same addresses.
import torch
import triton
import triton.language as tl


@triton.jit
def class_sum_atomic_kernel(loss_ptr, label_ptr, sums_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < n
    x = tl.load(loss_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    c = tl.load(label_ptr + offs, mask=ok, other=0).to(tl.int32)
    tl.atomic_add(sums_ptr + c, x, mask=ok)


def kernel_function(loss, labels, classes=10):  # classes: get_init_inputs()[0], after the inputs
    n = loss.numel()
    sums = torch.zeros(classes, device=loss.device, dtype=torch.float32)
    class_sum_atomic_kernel[(triton.cdiv(n, 1024),)](loss, labels, sums, n, BLOCK=1024, num_warps=4)
    return sums
