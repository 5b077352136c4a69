# Held-out defect: atomic contention. Each thread takes the max |x| of its 8 values (one 16-byte
# load) and raises the single global maximum with an atomicMax of its own: 2^24 atomics, all on
# the same 4 bytes, queueing at one L2 slice.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().amax_thread(x)
