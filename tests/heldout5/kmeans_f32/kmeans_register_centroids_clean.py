# Clean twin of kmeans_register_centroids.py: the same loop with the centroids copied to __constant__
# (a memcpy, no kernel) and read as constant-bank operands: 48 registers a thread, 40 warps an SM.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(points, centroids):
    return planted_cuda.module().kmeans_constants(points, centroids)
