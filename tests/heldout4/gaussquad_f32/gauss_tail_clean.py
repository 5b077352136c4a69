# Clean twin of gauss_tail.py: the same integrals over exactly one wave (2 blocks of 1024 per SM),
# the values dealt out over the grid a thread at a time.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(a):
    return planted_cuda.module().gauss_persistent(a)
