# Planted defect: register spills. 48 live floats per thread under __launch_bounds__(256, 8) (32 registers).
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().spilling_poly(x, x.numel(), 8)
