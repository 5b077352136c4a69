# Clean twin of linear_relu_fma.py: the same 128 x 128 tiles through WMMA (mma.sync on the tensor
# cores), 16 x 16 x 16 fragments, 32 x 64 outputs per warp.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout3/cuda/heldout3.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x, weight, bias):
    return planted_cuda.module().linear_relu_wmma(x, weight, bias)
