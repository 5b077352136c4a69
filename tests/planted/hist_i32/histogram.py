# Planted defect: atomic contention. One atomic per element into 4 bins (2^23 atomics on 4
# addresses).
import torch
import triton
import triton.language as tl


@triton.jit
def histogram_atomic_per_element_kernel(x_ptr, bins_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + (v & 3), 1, mask=mask)


def kernel_function(x):
    bins = torch.zeros(4, device=x.device, dtype=torch.int32)
    n = x.numel()
    histogram_atomic_per_element_kernel[(triton.cdiv(n, 1024),)](x, bins, n, BLOCK=1024)
    return bins
