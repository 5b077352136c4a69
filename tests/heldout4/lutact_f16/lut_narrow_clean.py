# Clean twin of lut_narrow.py: the same kernel body with blocks of 1024 threads: one block, 32 warps
# an SM.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, table):
    return planted_cuda.module().lut_wide(x, table)
