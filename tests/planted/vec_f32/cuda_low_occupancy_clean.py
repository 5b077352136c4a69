# Clean twin of cuda_low_occupancy.py: the same kernel and blocks without the shared memory.
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().smem_free_scale(x, x.numel() // 8)
