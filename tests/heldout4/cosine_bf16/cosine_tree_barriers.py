# Held-out defect: barrier stalls. 16 rows a block of 256 threads, a column each: after the loads,
# each row is summed (three sums) by a shared-memory tree with a block-wide __syncthreads after every
# one of its 8 halving steps: 144 barriers a block, at each of which most warps wait on the few
# still adding.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(a, b):
    return planted_cuda.module().cosine_tree(a, b)
