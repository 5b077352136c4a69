# Planted defect: too few blocks. A grid-stride loop launched with 4 blocks of 256 threads.
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().few_blocks_scale(x, x.numel() // 16)
