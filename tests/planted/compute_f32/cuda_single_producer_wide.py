# Planted defect: barrier stalls, 1024-thread blocks: one warp computes the tile, 31 wait.
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().single_producer_wide(x, 1 << 20, 4)
