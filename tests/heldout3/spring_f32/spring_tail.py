# Held-out defect: tail effect. The springs are split evenly over one block more than a wave
# (blocks of 1024 threads, 2 per SM): the last block, with as much work as any, runs alone on one
# SM after the first wave, about a third of the time. The fix is the grid, no device line.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout3/cuda/heldout3.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, v, k, steps, dt):
    return planted_cuda.module().spring_chunks_tail(x, v, k, steps, dt)
