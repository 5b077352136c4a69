# Clean twin of cdist_l1_tile16.py: 8 x 8 outputs a thread kept in registers, so 16 shared-memory
# loads feed 64 |a - b| per step of k.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout2/cuda/heldout2.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(a, b):
    return planted_cuda.module().cdist_l1_reg8x8(a, b)
