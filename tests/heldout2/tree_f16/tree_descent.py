# Held-out defect: memory latency. A lane per sample walks from the root to a leaf: 25 threshold
# loads in a row, the address of each decided by the comparison with the one before it, the deep
# levels scattered over 64 MiB. No clean twin: the answer takes that chain of loads.
import torch
import triton
import triton.language as tl


@triton.jit
def tree_descent_kernel(x_ptr, thr_ptr, leaf_ptr, out_ptr, Q, DEPTH: tl.constexpr, FIRST_LEAF: tl.constexpr,
                        BLOCK: tl.constexpr):
    q = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = q < Q
    node = tl.zeros([BLOCK], dtype=tl.int32)
    for d in range(0, DEPTH):
        v = tl.load(x_ptr + d * Q + q, mask=ok, other=0.0)
        t = tl.load(thr_ptr + node, mask=ok, other=0.0)
        node = 2 * node + 1 + (v > t).to(tl.int32)
    leaf = tl.load(leaf_ptr + (node - FIRST_LEAF), mask=ok, other=0.0)
    tl.store(out_ptr + q, leaf, mask=ok)


def kernel_function(x, thresholds, leaves, depth=25):  # depth: get_init_inputs()[0], after the inputs
    Q = x.shape[1]
    out = torch.empty(Q, device=x.device, dtype=leaves.dtype)
    tree_descent_kernel[(triton.cdiv(Q, 128),)](x, thresholds, leaves, out, Q, DEPTH=depth,
                                                FIRST_LEAF=(1 << depth) - 1, BLOCK=128, num_warps=4)
    return out
