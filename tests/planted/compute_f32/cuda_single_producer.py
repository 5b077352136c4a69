# Planted defect: barrier stalls. One warp of each 256-thread block computes the block's tile while
# the other seven wait at __syncthreads().
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().single_producer(x, 1 << 20, 8)
