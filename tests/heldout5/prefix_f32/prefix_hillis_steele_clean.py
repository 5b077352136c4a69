# Clean twin of prefix_hillis_steele.py: each warp scans its 32 values with shuffles and warp 0
# scans the 32 warp totals: two barriers a row instead of 20.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().prefix_warp(x)
