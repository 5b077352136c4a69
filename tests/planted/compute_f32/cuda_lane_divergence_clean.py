# Clean twin of cuda_lane_divergence.py: the same branches, taken by whole warps.
# CUDA C++ built with load_inline and -lineinfo: tests/planted/cuda/planted.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(x):
    return planted_cuda.module().warp_uniform(x, x.numel(), 256)
