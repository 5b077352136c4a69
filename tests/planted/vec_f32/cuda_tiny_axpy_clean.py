# Clean twin: the same body over 4096 such vectors (2^24 floats) in one launch, at the DRAM roof.
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().batched_axpy(x, 1 << 24)
