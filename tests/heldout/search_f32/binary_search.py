# Held-out defect: memory latency. Each lane bisects the 64 MiB of keys: 25 loads in a row, the
# address of each decided by the value the one before it loaded, most of them far apart in DRAM.
# No clean twin: the same answer takes the same chain of loads.
import torch
import triton
import triton.language as tl


@triton.jit
def bisect_keys_kernel(keys_ptr, q_ptr, out_ptr, n_keys, n_queries, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_queries
    q = tl.load(q_ptr + offs, mask=mask, other=0.0)
    lo = tl.zeros([BLOCK], dtype=tl.int32)
    hi = tl.zeros([BLOCK], dtype=tl.int32) + n_keys
    for _ in range(0, STEPS):
        active = lo < hi
        mid = (lo + hi) // 2
        key = tl.load(keys_ptr + mid, mask=mask & active, other=0.0)
        right = active & (key < q)
        lo = tl.where(right, mid + 1, lo)
        hi = tl.where(active & (key >= q), mid, hi)
    tl.store(out_ptr + offs, lo.to(tl.int64), mask=mask)


def kernel_function(keys, queries):
    n_keys = keys.numel()
    n_queries = queries.numel()
    out = torch.empty(n_queries, device=queries.device, dtype=torch.int64)
    bisect_keys_kernel[(triton.cdiv(n_queries, 128),)](keys, queries, out, n_keys, n_queries,
                                                       STEPS=n_keys.bit_length() + 1, BLOCK=128, num_warps=4)
    return out
