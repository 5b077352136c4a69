# Clean twin of fourier_interleaved.py: the first 2^22 threads take the sine sum and the others
# the cosine sum, so each warp runs one of the two loops with all of its lanes.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout3/cuda/heldout3.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(a, b):
    return planted_cuda.module().fourier_halves(a, b)
