# Clean twin of voxel_count_atomic.py: the lanes of a warp that share a voxel add their count once
# (__match_any_sync) to the block's shared counters, and each block adds its nonzero counters to
# the global ones (8 blocks of 256 per SM in a grid-stride loop).
# CUDA C++ built with load_inline and -lineinfo: tests/heldout3/cuda/heldout3.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(pts):
    return planted_cuda.module().voxel_count_shared(pts)
